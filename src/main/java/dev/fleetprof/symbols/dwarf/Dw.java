package dev.fleetprof.symbols.dwarf;

/** The DWARF constants this reader uses (DWARF 5 numbering, plus the GNU extensions it reads). */
final class Dw {
  private Dw() {}

  static final int TAG_entry_point = 0x03;
  static final int TAG_variable = 0x34;
  static final int TAG_compile_unit = 0x11;
  static final int TAG_inlined_subroutine = 0x1d;
  static final int TAG_subprogram = 0x2e;
  static final int TAG_partial_unit = 0x3c;
  static final int TAG_type_unit = 0x41;
  static final int TAG_skeleton_unit = 0x4a;

  static final int AT_location = 0x02;
  static final int AT_name = 0x03;
  static final int AT_const_value = 0x1c;
  static final int AT_stmt_list = 0x10;
  static final int AT_low_pc = 0x11;
  static final int AT_high_pc = 0x12;
  static final int AT_language = 0x13;
  static final int AT_comp_dir = 0x1b;
  static final int AT_abstract_origin = 0x31;
  static final int AT_specification = 0x47;
  static final int AT_ranges = 0x55;
  static final int AT_call_file = 0x58;
  static final int AT_call_line = 0x59;
  static final int AT_linkage_name = 0x6e;
  static final int AT_str_offsets_base = 0x72;
  static final int AT_addr_base = 0x73;
  static final int AT_rnglists_base = 0x74;
  static final int AT_MIPS_linkage_name = 0x2007;
  static final int AT_GNU_addr_base = 0x2133;

  static final int FORM_addr = 0x01;
  static final int FORM_block2 = 0x03;
  static final int FORM_block4 = 0x04;
  static final int FORM_data2 = 0x05;
  static final int FORM_data4 = 0x06;
  static final int FORM_data8 = 0x07;
  static final int FORM_string = 0x08;
  static final int FORM_block = 0x09;
  static final int FORM_block1 = 0x0a;
  static final int FORM_data1 = 0x0b;
  static final int FORM_flag = 0x0c;
  static final int FORM_sdata = 0x0d;
  static final int FORM_strp = 0x0e;
  static final int FORM_udata = 0x0f;
  static final int FORM_ref_addr = 0x10;
  static final int FORM_ref1 = 0x11;
  static final int FORM_ref2 = 0x12;
  static final int FORM_ref4 = 0x13;
  static final int FORM_ref8 = 0x14;
  static final int FORM_ref_udata = 0x15;
  static final int FORM_indirect = 0x16;
  static final int FORM_sec_offset = 0x17;
  static final int FORM_exprloc = 0x18;
  static final int FORM_flag_present = 0x19;
  static final int FORM_strx = 0x1a;
  static final int FORM_addrx = 0x1b;
  static final int FORM_ref_sup4 = 0x1c;
  static final int FORM_strp_sup = 0x1d;
  static final int FORM_data16 = 0x1e;
  static final int FORM_line_strp = 0x1f;
  static final int FORM_ref_sig8 = 0x20;
  static final int FORM_implicit_const = 0x21;
  static final int FORM_loclistx = 0x22;
  static final int FORM_rnglistx = 0x23;
  static final int FORM_ref_sup8 = 0x24;
  static final int FORM_strx1 = 0x25;
  static final int FORM_strx2 = 0x26;
  static final int FORM_strx3 = 0x27;
  static final int FORM_strx4 = 0x28;
  static final int FORM_addrx1 = 0x29;
  static final int FORM_addrx2 = 0x2a;
  static final int FORM_addrx3 = 0x2b;
  static final int FORM_addrx4 = 0x2c;
  static final int FORM_GNU_addr_index = 0x1f01;
  static final int FORM_GNU_str_index = 0x1f02;
  static final int FORM_GNU_ref_alt = 0x1f20;
  static final int FORM_GNU_strp_alt = 0x1f21;

  static final int UT_compile = 1;
  static final int UT_type = 2;
  static final int UT_partial = 3;
  static final int UT_skeleton = 4;
  static final int UT_split_compile = 5;
  static final int UT_split_type = 6;

  static final int LNCT_path = 1;
  static final int LNCT_directory_index = 2;

  static final int RLE_end_of_list = 0;
  static final int RLE_base_addressx = 1;
  static final int RLE_startx_endx = 2;
  static final int RLE_startx_length = 3;
  static final int RLE_offset_pair = 4;
  static final int RLE_base_address = 5;
  static final int RLE_start_end = 6;
  static final int RLE_start_length = 7;

  /** Forms binutils reads as an integer (its {@code is_int_form}). */
  static boolean isIntForm(int form) {
    switch (form) {
      case FORM_addr:
      case FORM_data2:
      case FORM_data4:
      case FORM_data8:
      case FORM_data1:
      case FORM_flag:
      case FORM_sdata:
      case FORM_udata:
      case FORM_ref_addr:
      case FORM_ref1:
      case FORM_ref2:
      case FORM_ref4:
      case FORM_ref8:
      case FORM_ref_udata:
      case FORM_sec_offset:
      case FORM_flag_present:
      case FORM_ref_sig8:
      case FORM_addrx:
      case FORM_implicit_const:
      case FORM_addrx1:
      case FORM_addrx2:
      case FORM_addrx3:
      case FORM_addrx4:
      case FORM_GNU_ref_alt:
      case FORM_GNU_addr_index:
        return true;
      default:
        return false;
    }
  }

  /** Forms that hold a string. */
  static boolean isStrForm(int form) {
    switch (form) {
      case FORM_string:
      case FORM_strp:
      case FORM_strx:
      case FORM_strx1:
      case FORM_strx2:
      case FORM_strx3:
      case FORM_strx4:
      case FORM_line_strp:
      case FORM_GNU_strp_alt:
      case FORM_GNU_str_index:
      case FORM_strp_sup:
        return true;
      default:
        return false;
    }
  }

  /**
   * Languages whose DW_AT_name is the symbol itself (binutils' {@code mangle_style} 0): for these a
   * function's DW_AT_name counts as its linkage name.
   */
  static boolean nameIsLinkage(long lang) {
    switch ((int) lang) {
      case 0x0001:
      case 0x0002:
      case 0x0005:
      case 0x0006:
      case 0x0007:
      case 0x0009:
      case 0x000c:
      case 0x000f:
      case 0x0012:
      case 0x001d:
      case 0x8001:
      case 0x8765:
      case 0x8004:
      case 0x8006:
      case 0x8007:
        return lang == (int) lang;
      default:
        return false;
    }
  }
}
