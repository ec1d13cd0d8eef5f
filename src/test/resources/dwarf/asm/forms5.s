# Hand-written DWARF 5 exercising forms gcc does not emit: strx1-4, addrx1-4, implicit_const,
# indirect, rnglistx with DW_AT_rnglists_base, every DW_RLE kind, data16, loclistx, ref_udata,
# DW_FORM_ref_addr into another object's unit, a type unit (DW_UT_type), DW_AT_str_offsets_base,
# DW_AT_addr_base. The line table comes from the .loc directives (as --gdwarf-5).
# LLVM 14 cannot read DW_FORM_addrx1-4, nor a DW_FORM_loclistx without .debug_loclists: assembled
# as is, addresses are DW_FORM_addrx (so llvm-symbolizer can be the reference); with
# --defsym EXOTIC=1 they are DW_FORM_addrx1-4 and a variable has a loclistx location, which must
# change nothing.

	.macro addr_form exotic
.ifdef EXOTIC
	.uleb128 \exotic
.else
	.uleb128 0x1b
.endif
	.endm

	.macro addr_index size, idx
.ifdef EXOTIC
.if \size == 1
	.byte \idx
.elseif \size == 2
	.short \idx
.elseif \size == 3
	.byte \idx, 0, 0
.else
	.long \idx
.endif
.else
	.uleb128 \idx
.endif
	.endm
	.section .debug_line,"",@progbits
.Lline_start:
	.text
	.file 0 "/syn" "main.c"
	.file 1 "/syn" "main.c"
	.file 2 "/syn/inc" "helper.h"
	.globl _start
	.type _start, @function
_start:
.Louter_lo:
	.loc 1 10 0
	nop; nop; nop; nop
.Linl_lo:
	.loc 2 20 0
	nop; nop; nop; nop
	.loc 2 21 0
	nop; nop
.Linl_hi:
	.loc 1 11 0
	nop; nop
.Louter_hi:
	.size _start, .-_start

	.globl split_fn
	.type split_fn, @function
split_fn:
.Lsplit_a:
	.loc 1 30 0
	nop; nop; nop; nop
.Lsplit_b:
	.size split_fn, .-split_fn

	.globl other
	.type other, @function
other:
.Lother_lo:
	.loc 1 40 0
	nop; nop; nop; nop
.Linl2_lo:
	.loc 2 50 0
	nop; nop
.Linl2_mid:
	.loc 1 41 0
	nop; nop
.Linl2_mid2:
	.loc 2 51 0
	nop; nop
.Linl2_hi:
	.loc 1 42 0
	nop; nop
.Lother_hi:
	.size other, .-other

	.type split_fn.cold, @function
split_fn.cold:
.Lsplit_c:
	.loc 1 31 0
	nop; nop; nop; nop
.Lsplit_d:
	.size split_fn.cold, .-split_fn.cold
.Ltext_end:

	.section .debug_str,"MS",@progbits,1
.Ls_main:	.string "main.c"
.Ls_dir:	.string "/syn"
.Ls_helper:	.string "helper"
.Ls_outer:	.string "outer_fn"
.Ls_split:	.string "split_fn"
.Ls_other_link:	.string "other_linkage"

	.section .debug_str_offsets,"",@progbits
	.long .Lstro_end - .Lstro_start
.Lstro_start:
	.short 5
	.short 0
.Lstro_base:
	.long .Ls_main
	.long .Ls_dir
	.long .Ls_helper
	.long .Ls_outer
	.long .Ls_split
.Lstro_end:

	.section .debug_addr,"",@progbits
	.long .Laddr_end - .Laddr_start
.Laddr_start:
	.short 5
	.byte 8
	.byte 0
.Laddr_base:
	.quad .Louter_lo	# 0
	.quad .Linl_lo		# 1
	.quad .Lsplit_a		# 2
	.quad .Lsplit_b		# 3
	.quad .Lother_lo	# 4
	.quad .Linl2_mid2	# 5
.Laddr_end:

	.section .debug_rnglists,"",@progbits
	.long .Lrng_end - .Lrng_start
.Lrng_start:
	.short 5
	.byte 8
	.byte 0
	.long 1
.Lrng_base:
	.long .Lrng_split - .Lrng_base
.Lrng_split:
	.byte 2			# DW_RLE_startx_endx
	.uleb128 2
	.uleb128 3
	.byte 7			# DW_RLE_start_length
	.quad .Lsplit_c
	.uleb128 .Lsplit_d - .Lsplit_c
	.byte 0
.Lrng_inl2:
	.byte 1			# DW_RLE_base_addressx
	.uleb128 4
	.byte 4			# DW_RLE_offset_pair
	.uleb128 .Linl2_lo - .Lother_lo
	.uleb128 .Linl2_mid - .Lother_lo
	.byte 3			# DW_RLE_startx_length
	.uleb128 5
	.uleb128 1
	.byte 5			# DW_RLE_base_address
	.quad .Linl2_mid2
	.byte 6			# DW_RLE_start_end
	.quad .Linl2_mid2 + 1
	.quad .Linl2_hi
	.byte 0
.Lrng_end:

	.section .debug_abbrev,"",@progbits
.Labbrev0:
	.uleb128 1, 0x11, 1		# compile_unit, children
	.uleb128 0x03, 0x25		# name strx1
	.uleb128 0x1b, 0x26		# comp_dir strx2
	.uleb128 0x13, 0x21, 0x1d	# language implicit_const C11
	.uleb128 0x10, 0x17		# stmt_list sec_offset
	.uleb128 0x11			# low_pc addrx1
	addr_form 0x29
	.uleb128 0x12, 0x06		# high_pc data4
	.uleb128 0x72, 0x17		# str_offsets_base
	.uleb128 0x73, 0x17		# addr_base
	.uleb128 0x74, 0x17		# rnglists_base
	.uleb128 0, 0
	.uleb128 2, 0x2e, 1		# subprogram, children
	.uleb128 0x03, 0x27		# name strx3
	.uleb128 0x11			# low_pc addrx2
	addr_form 0x2a
	.uleb128 0x12, 0x07		# high_pc data8
	.uleb128 0, 0
	.uleb128 3, 0x1d, 0		# inlined_subroutine
	.uleb128 0x31, 0x15		# abstract_origin ref_udata
	.uleb128 0x11			# low_pc addrx4
	addr_form 0x2c
	.uleb128 0x12, 0x05		# high_pc data2
	.uleb128 0x58, 0x0b		# call_file data1
	.uleb128 0x59, 0x0f		# call_line udata
	.uleb128 0, 0
	.uleb128 4, 0x2e, 0		# subprogram (abstract)
	.uleb128 0x03, 0x28		# name strx4
	.uleb128 0x20, 0x21, 3		# inline implicit_const
	.uleb128 0, 0
	.uleb128 5, 0x2e, 0		# subprogram
	.uleb128 0x03, 0x16		# name indirect
	.uleb128 0x55, 0x23		# ranges rnglistx
	.uleb128 0, 0
	.uleb128 7, 0x2e, 1		# subprogram, children
	.uleb128 0x6e, 0x0e		# linkage_name strp
	.uleb128 0x03, 0x08		# name string
	.uleb128 0x11			# low_pc addrx3
	addr_form 0x2b
	.uleb128 0x12, 0x06		# high_pc data4
	.uleb128 0, 0
	.uleb128 8, 0x1d, 0		# inlined_subroutine
	.uleb128 0x31, 0x10		# abstract_origin ref_addr
	.uleb128 0x55, 0x17		# ranges sec_offset
	.uleb128 0x58, 0x0b		# call_file data1
	.uleb128 0x59, 0x0f		# call_line udata
	.uleb128 0, 0
	.uleb128 9, 0x34, 0		# variable
	.uleb128 0x1c, 0x1e		# const_value data16
.ifdef EXOTIC
	.uleb128 0x02, 0x22		# location loclistx
.endif
	.uleb128 0, 0
	.uleb128 10, 0x41, 0		# type_unit
	.uleb128 0x03, 0x08		# name string
	.uleb128 0, 0
	.uleb128 0

	.section .debug_info,"",@progbits
	# A type unit first: skipped.
	.long .Ltu_end - .Ltu_start
.Ltu_start:
	.short 5
	.byte 2			# DW_UT_type
	.byte 8
	.long .Labbrev0
	.quad 0x1234567890abcdef
	.long .Ltu_die - .Ltu_start + 4
.Ltu_die:
	.uleb128 10
	.string "a type unit"
.Ltu_end:

.Lcu:
	.long .Lcu_end - .Lcu_start
.Lcu_start:
	.short 5
	.byte 1			# DW_UT_compile
	.byte 8
	.long .Labbrev0
	.uleb128 1
	.byte 0			# main.c
	.short 1		# /syn
	.long .Lline_start
	addr_index 1, 0		# low_pc
	.long .Ltext_end - .Louter_lo
	.long .Lstro_base
	.long .Laddr_base
	.long .Lrng_base
.Lhelper_die:
	.uleb128 4
	.long 2			# strx4 2: helper
.Louter_die:
	.uleb128 2
	.byte 3, 0, 0		# strx3 3: outer_fn
	addr_index 2, 0		# low_pc
	.quad .Louter_hi - .Louter_lo
	.uleb128 3
	.uleb128 .Lhelper_die - .Lcu
	addr_index 4, 1		# low_pc
	.short .Linl_hi - .Linl_lo
	.byte 1
	.uleb128 12
	.byte 0
	.uleb128 5
	.uleb128 0x25		# indirect: strx1
	.byte 4			# split_fn
	.uleb128 0		# rnglistx 0
	.uleb128 7
	.long .Ls_other_link
	.string "other"
	addr_index 3, 4		# low_pc
	.long .Lother_hi - .Lother_lo
	.uleb128 8
	.long remote_helper_die
	.long .Lrng_inl2
	.byte 1
	.uleb128 41
	.uleb128 9
	.quad 1, 2		# data16
.ifdef EXOTIC
	.uleb128 0		# loclistx 0
.endif
	.byte 0
	.byte 0
.Lcu_end:
