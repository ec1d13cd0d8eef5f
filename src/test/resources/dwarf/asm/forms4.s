# Hand-written 64-bit DWARF 4: a unit whose function has DW_AT_ranges in .debug_ranges with a base
# address selection entry, ref1/ref2/ref8 abstract origins, high_pc in address form, and the
# DW_TAG_subprogram another object's unit names through DW_FORM_ref_addr.
	.section .debug_line,"",@progbits
.Lline_start:
	.text
	.file 1 "/syn/other/v4.c"
	.file 2 "rel/inc.h"
	.globl v4_fn
	.type v4_fn, @function
v4_fn:
.Lv4_lo:
	.loc 1 5 0
	nop; nop; nop; nop
.Lv4_inl:
	.loc 2 7 0
	nop; nop; nop; nop
.Lv4_mid:
	.loc 1 6 0
	nop; nop; nop; nop
.Lv4_hi:
	.size v4_fn, .-v4_fn
	.globl v4_second
	.type v4_second, @function
v4_second:
.Lv4b_lo:
	.loc 1 20 0
	nop; nop; nop; nop
.Lv4b_hi:
	.size v4_second, .-v4_second

	.section .debug_ranges,"",@progbits
.Lranges_v4:
	.quad -1, .Lv4_lo	# base address selection
	.quad 0, .Lv4_hi - .Lv4_lo
	.quad 0, 0

	.section .debug_abbrev,"",@progbits
.Labbrev4:
	.uleb128 1, 0x11, 1		# compile_unit
	.uleb128 0x03, 0x08		# name string
	.uleb128 0x1b, 0x08		# comp_dir string
	.uleb128 0x13, 0x0b		# language data1
	.uleb128 0x10, 0x17		# stmt_list sec_offset
	.uleb128 0x11, 0x01		# low_pc addr
	.uleb128 0x12, 0x01		# high_pc addr
	.uleb128 0, 0
	.uleb128 2, 0x2e, 0		# subprogram (abstract)
	.uleb128 0x03, 0x08
	.uleb128 0, 0
	.uleb128 3, 0x2e, 1		# subprogram with ranges
	.uleb128 0x03, 0x08
	.uleb128 0x55, 0x17		# ranges sec_offset (8 bytes in 64-bit DWARF)
	.uleb128 0, 0
	.uleb128 4, 0x1d, 0		# inlined_subroutine
	.uleb128 0x31, 0x11		# abstract_origin ref1
	.uleb128 0x11, 0x01
	.uleb128 0x12, 0x01		# high_pc addr
	.uleb128 0x58, 0x0b
	.uleb128 0x59, 0x05		# call_line data2
	.uleb128 0, 0
	.uleb128 5, 0x2e, 0		# subprogram: origin ref8
	.uleb128 0x31, 0x14
	.uleb128 0x11, 0x01
	.uleb128 0x12, 0x07		# high_pc data8
	.uleb128 0, 0
	.uleb128 0

	.section .debug_info,"",@progbits
.Lcu4:
	.long 0xffffffff
	.quad .Lcu4_end - .Lcu4_start
.Lcu4_start:
	.short 4
	.quad .Labbrev4
	.byte 8
	.uleb128 1
	.string "v4.c"
	.string "/syn/other"
	.byte 0x0c		# C99
	.quad .Lline_start
	.quad .Lv4_lo
	.quad .Lv4b_hi
	.globl remote_helper_die
remote_helper_die:
	.uleb128 2
	.string "remote_helper"
.Lv4_abstract:
	.uleb128 2
	.string "v4_inlined"
	.uleb128 3
	.string "v4_fn"
	.quad .Lranges_v4
	.uleb128 4
	.byte .Lv4_abstract - .Lcu4
	.quad .Lv4_inl
	.quad .Lv4_mid
	.byte 1
	.short 55
	.byte 0
	.uleb128 5
	.quad .Lv4_second_abstract - .Lcu4
	.quad .Lv4b_lo
	.quad .Lv4b_hi - .Lv4b_lo
.Lv4_second_abstract:
	.uleb128 2
	.string "v4_second_fn"
	.byte 0
.Lcu4_end:
