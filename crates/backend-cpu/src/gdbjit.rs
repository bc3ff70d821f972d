//! Debug info for gdb: the GDB JIT interface.
//!
//! With [`crate::Options::debug_info`] set, [`crate::compile`] describes
//! the code it generated in a small in-memory ELF object and registers it
//! with the debugger through the JIT compilation interface of the gdb manual
//! ("JIT Compilation Interface"): a linked list of [`JitCodeEntry`]s hung off
//! the global [`__jit_debug_descriptor`], and the empty function
//! [`__jit_debug_register_code`] on which gdb keeps a breakpoint. The object
//! is unregistered when the artifact is dropped.
//!
//! # The object
//!
//! * `.text`: `SHT_NOBITS` (no bytes in the file), `sh_addr` the lowest
//!   address of the artifact's functions and `sh_size` the span up to the end
//!   of the highest one; the object is of type `ET_EXEC`, so every address
//!   in it is absolute.
//! * `.symtab`: one `STT_FUNC` symbol per function (its Cranelift name
//!   `weft_<id>_<name>`), at its address, with its size.
//! * DWARF 4: one compile unit per source file that defines a function
//!   (`DW_AT_name` the file as [`weft_ir::Module::files`] has it,
//!   `DW_AT_comp_dir` the working directory, `DW_AT_ranges` its functions),
//!   a `DW_TAG_subprogram` per function (`low_pc`/`high_pc`, `decl_line`),
//!   and a line program whose rows map machine-code offsets to the IR
//!   instructions' [`Loc`]s: the lowering (`lower/debug.rs`) tags each instruction it emits
//!   with a Cranelift [`SourceLoc`](cranelift_codegen::ir::SourceLoc) that
//!   indexes the module's table of locations, and Cranelift reports the
//!   code ranges of each after register allocation. The prologue is on the
//!   function's `def` line; other code with no location gets line 0.
//! * Variables: a `DW_TAG_formal_parameter` or `DW_TAG_variable` per Python
//!   name of the function (and `tid`, the thread index: the kernel's loop
//!   counter, a func's hidden argument), typed with base types (`f32`,
//!   `i32`, …), arrays for `vec`/`mat`/`quat`/`transform`, structure
//!   types for `@wp.struct`s and for array handles (`data` a pointer to the
//!   element type, `shape`, `strides`); `f16` values are left out.
//!   the lowering (`lower/debug.rs`) gives each leaf of each named IR value a Cranelift value
//!   label; Cranelift reports where (register or stack slot) each label
//!   lives over which code ranges, and the location lists say so, with a
//!   `DW_OP_piece` per leaf of an aggregate. Where several values of one
//!   name are live, the latest defined is the variable's value.
//! * `.debug_frame`: Cranelift's System V unwind info of each function, so
//!   that `bt` walks from kernel code into the runtime's frames.

use crate::Error;
use cranelift_codegen::gimli;
use gimli::write::{
    Address, AttributeValue, CommonInformationEntry, DebugFrame, Dwarf, EndianVec, Expression,
    FrameDescriptionEntry, FrameTable, LineProgram, LineString, Location, LocationList, Range,
    RangeList, Sections, StringTable, Unit, UnitEntryId,
};
use object::elf;
use object::write::elf::{FileHeader, SectionHeader, Sym, Writer};
use std::cell::UnsafeCell;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::ptr::null_mut;
use std::sync::Mutex;
use weft_ir::layout::{self, SlotKind};
use weft_ir::{Loc, Scalar, StructTable, Type};

/// What the debug info says about one compiled function.
pub(crate) struct FuncInfo {
    /// The IR function's name.
    pub name: String,
    /// The symbol (the Cranelift function name).
    pub symbol: String,
    /// Where the function is defined (its `def` line).
    pub loc: Loc,
    /// Absolute address and size in bytes of its code.
    pub addr: u64,
    pub size: u64,
    /// `(start, end, loc)`: code offsets (from `addr`) and the source
    /// location of the instruction there, sorted by `start`.
    pub rows: Vec<(u32, u32, Loc)>,
    /// Its variables.
    pub vars: Vec<VarInfo>,
    /// Unwind info at `addr`.
    pub fde: Option<FrameDescriptionEntry>,
}

/// Where a scalar leaf of a variable lives: a register (DWARF number) or
/// the stack, at an offset from the canonical frame address.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum LeafLoc {
    Reg(u16),
    Cfa(i64),
}

/// A named variable of a function (a Python name; `tid` the thread index).
pub(crate) struct VarInfo {
    pub name: String,
    pub ty: Type,
    /// A parameter of the function (`DW_TAG_formal_parameter`).
    pub param: bool,
    /// Its values (SSA definitions), each per scalar leaf
    /// ([`weft_ir::layout::slots`] order): the code ranges (offsets from the
    /// function's address) where the leaf is live, and where it is.
    pub values: Vec<Vec<Vec<(u32, u32, LeafLoc)>>>,
}

/// The ELF machine and byte order of the host.
fn host_machine() -> Option<(u16, object::Endianness)> {
    use object::Endianness::{Big, Little};
    if cfg!(target_pointer_width = "64") {
        if cfg!(target_arch = "x86_64") {
            return Some((elf::EM_X86_64, Little));
        } else if cfg!(target_arch = "aarch64") {
            return Some((elf::EM_AARCH64, Little));
        } else if cfg!(target_arch = "riscv64") {
            return Some((elf::EM_RISCV, Little));
        } else if cfg!(target_arch = "s390x") {
            return Some((elf::EM_S390, Big));
        }
    }
    None
}

fn dwarf_err(e: gimli::write::Error) -> Error {
    Error::Codegen(format!("debug info: {e}"))
}

/// A non-empty string without NUL bytes (gimli's requirement for names).
fn dwarf_name(s: &str) -> Vec<u8> {
    let v: Vec<u8> = s.bytes().filter(|&b| b != 0).collect();
    if v.is_empty() {
        b"?".to_vec()
    } else {
        v
    }
}

/// The DWARF sections (name, bytes) describing `funcs`, whose locations
/// index `files`.
fn dwarf_sections(
    files: &[String],
    structs: &StructTable,
    comp_dir: &str,
    funcs: &[FuncInfo],
    cie: Option<CommonInformationEntry>,
) -> Result<Vec<(&'static str, Vec<u8>)>, Error> {
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 4,
        address_size: 8,
    };
    // Functions grouped by the file that defines them (one unit each).
    let mut by_file: BTreeMap<u32, Vec<&FuncInfo>> = BTreeMap::new();
    for f in funcs.iter().filter(|f| f.size > 0) {
        by_file.entry(f.loc.file).or_default().push(f);
    }
    let mut dwarf = Dwarf::new();
    let file_name = |i: u32| {
        dwarf_name(
            files
                .get(i as usize)
                .map(|s| s.as_str())
                .unwrap_or("<unknown>"),
        )
    };
    for (&file, fs) in &by_file {
        let mut lp = LineProgram::new(
            encoding,
            gimli::LineEncoding::default(),
            LineString::String(dwarf_name(comp_dir)),
            None,
            LineString::String(file_name(file)),
            None,
        );
        let dir = lp.default_directory();
        let mut file_ids = BTreeMap::new();
        for f in fs {
            let mut file_id = |i: u32, lp: &mut LineProgram| {
                *file_ids
                    .entry(i)
                    .or_insert_with(|| lp.add_file(LineString::String(file_name(i)), dir, None))
            };
            let fid = file_id(f.loc.file, &mut lp);
            lp.begin_sequence(Some(Address::Constant(f.addr)));
            let mut last: Option<(u32, u32)> = None;
            let mut end = 0u32;
            let mut emit = |lp: &mut LineProgram, off: u32, key: (u32, u32), fid| {
                if last == Some(key) {
                    return;
                }
                last = Some(key);
                let row = lp.row();
                row.address_offset = off as u64;
                row.file = fid;
                row.line = key.1 as u64;
                row.is_statement = key.1 != 0;
                lp.generate_row();
            };
            // Code with no location: the prologue is on the `def` line (gdb
            // steps only into functions whose entry has a line), the rest
            // on line 0.
            let unknown = |off: u32| (f.loc.file, if off == 0 { f.loc.line } else { 0 });
            for &(start, stop, loc) in &f.rows {
                if start > end {
                    emit(&mut lp, end, unknown(end), fid);
                }
                if loc.is_none() {
                    emit(&mut lp, start, unknown(start), fid);
                } else {
                    let id = file_id(loc.file, &mut lp);
                    emit(&mut lp, start, (loc.file, loc.line), id);
                }
                end = end.max(stop);
            }
            lp.end_sequence(f.size);
        }
        let mut unit = Unit::new(encoding, lp);
        let mut types = HashMap::new();
        let ranges = RangeList(
            fs.iter()
                .map(|f| Range::StartLength {
                    begin: Address::Constant(f.addr),
                    length: f.size,
                })
                .collect(),
        );
        let ranges = unit.ranges.add(ranges);
        let root = unit.root();
        let name = dwarf.strings.add(file_name(file));
        let dir = dwarf.strings.add(dwarf_name(comp_dir));
        let producer = dwarf
            .strings
            .add(concat!("weft ", env!("CARGO_PKG_VERSION")));
        let cu = unit.get_mut(root);
        cu.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
        cu.set(gimli::DW_AT_comp_dir, AttributeValue::StringRef(dir));
        cu.set(gimli::DW_AT_producer, AttributeValue::StringRef(producer));
        cu.set(
            gimli::DW_AT_language,
            AttributeValue::Language(gimli::DW_LANG_Python),
        );
        cu.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(0)),
        );
        cu.set(gimli::DW_AT_ranges, AttributeValue::RangeListRef(ranges));
        for f in fs {
            let sp = unit.add(root, gimli::DW_TAG_subprogram);
            let name = dwarf.strings.add(dwarf_name(&f.name));
            let fid = file_ids.get(&f.loc.file).copied();
            let e = unit.get_mut(sp);
            e.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
            e.set(gimli::DW_AT_external, AttributeValue::Flag(true));
            e.set(gimli::DW_AT_decl_file, AttributeValue::FileIndex(fid));
            e.set(
                gimli::DW_AT_decl_line,
                AttributeValue::Udata(f.loc.line as u64),
            );
            e.set(
                gimli::DW_AT_low_pc,
                AttributeValue::Address(Address::Constant(f.addr)),
            );
            e.set(gimli::DW_AT_high_pc, AttributeValue::Udata(f.size));
            for v in &f.vars {
                add_variable(
                    &mut unit,
                    sp,
                    &mut dwarf.strings,
                    &mut types,
                    structs,
                    f.addr,
                    v,
                );
            }
        }
        dwarf.units.add(unit);
    }
    let mut sections = Sections::new(EndianVec::new(gimli::RunTimeEndian::default()));
    dwarf.write(&mut sections).map_err(dwarf_err)?;
    let mut out = Vec::new();
    sections
        .for_each(|id, data| {
            if !data.slice().is_empty() {
                out.push((id.name(), data.slice().to_vec()));
            }
            Ok::<(), gimli::write::Error>(())
        })
        .map_err(dwarf_err)?;
    if let Some(cie) = cie {
        let mut table = FrameTable::default();
        let cie = table.add_cie(cie);
        let mut any = false;
        for f in funcs {
            if let Some(fde) = &f.fde {
                table.add_fde(cie, fde.clone());
                any = true;
            }
        }
        if any {
            let mut frame = DebugFrame(EndianVec::new(gimli::RunTimeEndian::default()));
            table.write_debug_frame(&mut frame).map_err(dwarf_err)?;
            out.push((".debug_frame", frame.0.into_vec()));
        }
    }
    Ok(out)
}

/// The DWARF type of `ty` in `unit` (cached in `types`); `None` for `f16`
/// (which the code holds as `f32`) and what contains it. An array handle is
/// a struct `{data: *elem, shape: i32[ndim], strides: i64[ndim]}` laid out
/// as [`layout::ArrayDesc`], so that `x.data[i]` reads a unit-stride
/// array's element `i`.
fn type_die(
    unit: &mut Unit,
    strings: &mut StringTable,
    types: &mut HashMap<Type, Option<UnitEntryId>>,
    structs: &StructTable,
    ty: Type,
) -> Option<UnitEntryId> {
    if let Some(&t) = types.get(&ty) {
        return t;
    }
    let root = unit.root();
    let mut array = |unit: &mut Unit, strings: &mut StringTable, s: Scalar, dims: &[u8]| {
        let elem = type_die(unit, strings, types, structs, Type::Scalar(s))?;
        Some(array_die(unit, root, elem, dims))
    };
    let t = match ty {
        Type::Scalar(Scalar::F16 | Scalar::BF16) => None,
        Type::Scalar(s) => {
            let enc = match s {
                Scalar::Bool => gimli::DW_ATE_boolean,
                Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 => gimli::DW_ATE_signed,
                Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => gimli::DW_ATE_unsigned,
                Scalar::F16 | Scalar::F32 | Scalar::F64 | Scalar::BF16 => gimli::DW_ATE_float,
            };
            let id = unit.add(root, gimli::DW_TAG_base_type);
            let name = strings.add(s.name());
            let e = unit.get_mut(id);
            e.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
            e.set(gimli::DW_AT_encoding, AttributeValue::Encoding(enc));
            e.set(
                gimli::DW_AT_byte_size,
                AttributeValue::Udata(layout::size_of(ty, structs) as u64),
            );
            Some(id)
        }
        Type::Vec(n, s) => array(unit, strings, s, &[n]),
        Type::Mat(r, c, s) => array(unit, strings, s, &[r, c]),
        Type::Quat(s) => array(unit, strings, s, &[4]),
        Type::Transform(s) => array(unit, strings, s, &[7]),
        Type::Array(at) => {
            let elem = type_die(unit, strings, types, structs, at.elem.into())?;
            let i32t = type_die(unit, strings, types, structs, Type::Scalar(Scalar::I32))?;
            let i64t = type_die(unit, strings, types, structs, Type::Scalar(Scalar::I64))?;
            let ptr = unit.add(root, gimli::DW_TAG_pointer_type);
            let e = unit.get_mut(ptr);
            e.set(gimli::DW_AT_type, AttributeValue::UnitRef(elem));
            e.set(gimli::DW_AT_byte_size, AttributeValue::Udata(8));
            let n = [at.ndim];
            let shape = array_die(unit, root, i32t, &n);
            let strides = array_die(unit, root, i64t, &n);
            let members = [
                ("data", ptr, 0),
                ("shape", shape, layout::ARRAY_DESC_SHAPE),
                ("strides", strides, layout::ARRAY_DESC_STRIDES),
            ];
            let name = weft_ir::types::DisplayType(ty, structs).to_string();
            let size = layout::size_of(ty, structs);
            Some(struct_die(unit, strings, root, &name, size, &members))
        }
        Type::Struct(sid) => {
            let def = structs.get(sid)?;
            let mut members = Vec::with_capacity(def.fields.len());
            for (i, field) in def.fields.iter().enumerate() {
                let t = type_die(unit, strings, types, structs, field.ty)?;
                let (off, _) = layout::component_offset(ty, i as u32, structs)?;
                members.push((field.name.as_str(), t, off));
            }
            let size = layout::size_of(ty, structs);
            Some(struct_die(unit, strings, root, &def.name, size, &members))
        }
    };
    types.insert(ty, t);
    t
}

/// A C array of `elem` with dimensions `dims`, under `root`.
fn array_die(unit: &mut Unit, root: UnitEntryId, elem: UnitEntryId, dims: &[u8]) -> UnitEntryId {
    let id = unit.add(root, gimli::DW_TAG_array_type);
    unit.get_mut(id)
        .set(gimli::DW_AT_type, AttributeValue::UnitRef(elem));
    for &n in dims {
        let sub = unit.add(id, gimli::DW_TAG_subrange_type);
        unit.get_mut(sub)
            .set(gimli::DW_AT_count, AttributeValue::Udata(n as u64));
    }
    id
}

/// A struct named `name` of `size` bytes with `(name, type, offset)`
/// members, under `root`.
fn struct_die(
    unit: &mut Unit,
    strings: &mut StringTable,
    root: UnitEntryId,
    name: &str,
    size: u32,
    members: &[(&str, UnitEntryId, u32)],
) -> UnitEntryId {
    let id = unit.add(root, gimli::DW_TAG_structure_type);
    let name = strings.add(dwarf_name(name));
    let e = unit.get_mut(id);
    e.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
    e.set(gimli::DW_AT_byte_size, AttributeValue::Udata(size as u64));
    for &(name, t, off) in members {
        let m = unit.add(id, gimli::DW_TAG_member);
        let name = strings.add(dwarf_name(name));
        let e = unit.get_mut(m);
        e.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
        e.set(gimli::DW_AT_type, AttributeValue::UnitRef(t));
        e.set(
            gimli::DW_AT_data_member_location,
            AttributeValue::Udata(off as u64),
        );
    }
    id
}

/// Appends the location of a leaf to `e`.
fn leaf_location(e: &mut Expression, l: LeafLoc) {
    match l {
        LeafLoc::Reg(r) => e.op_reg(gimli::Register(r)),
        LeafLoc::Cfa(off) => {
            e.op(gimli::DW_OP_call_frame_cfa);
            if off != 0 {
                e.op_consts(off);
                e.op(gimli::DW_OP_plus);
            }
        }
    }
}

/// A `DW_TAG_variable` for `v` under `parent`. Its location list has an
/// entry per code range over which the variable's current value and the set
/// of its live leaves do not change (an aggregate is a `DW_OP_piece` per
/// leaf, empty for a dead one). Where several values of the variable are
/// live, the current one is the latest defined (its first range starts
/// last): the body of a loop is laid out after its header.
fn add_variable(
    unit: &mut Unit,
    parent: UnitEntryId,
    strings: &mut StringTable,
    types: &mut HashMap<Type, Option<UnitEntryId>>,
    structs: &StructTable,
    addr: u64,
    v: &VarInfo,
) {
    let Some(t) = type_die(unit, strings, types, structs, v.ty) else {
        return;
    };
    let slots = layout::slots(v.ty, structs);
    let mut cuts: Vec<u32> = v
        .values
        .iter()
        .flatten()
        .flatten()
        .flat_map(|&(a, b, _)| [a, b])
        .collect();
    let defs: Vec<u32> = v
        .values
        .iter()
        .map(|ls| ls.iter().flatten().map(|r| r.0).min().unwrap_or(u32::MAX))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut list: Vec<Location> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let live =
            |ls: &Vec<Vec<(u32, u32, LeafLoc)>>| ls.iter().flatten().any(|r| r.0 <= a && a < r.1);
        let Some(cur) = (0..v.values.len())
            .filter(|&i| live(&v.values[i]))
            .max_by_key(|&i| defs[i])
        else {
            continue;
        };
        let at = |k: usize| {
            v.values[cur]
                .get(k)
                .and_then(|rs| rs.iter().find(|r| r.0 <= a && a < r.1))
                .map(|r| r.2)
        };
        let mut e = Expression::new();
        if let (Type::Scalar(_), Some(l)) = (v.ty, at(0)) {
            leaf_location(&mut e, l);
        } else {
            let mut end = 0;
            for (k, slot) in slots.iter().enumerate() {
                let size = match slot.kind {
                    SlotKind::Scalar(s) => layout::size_of(Type::Scalar(s), structs),
                    SlotKind::Data | SlotKind::Stride(_) => 8,
                    SlotKind::Shape(_) => 4,
                };
                if slot.offset > end {
                    e.op_piece((slot.offset - end) as u64);
                }
                if let Some(l) = at(k) {
                    leaf_location(&mut e, l);
                }
                e.op_piece(size as u64);
                end = slot.offset + size;
            }
        }
        if let Some(Location::StartLength {
            begin,
            length,
            data,
        }) = list.last_mut()
        {
            if *begin == Address::Constant(addr + a as u64 - *length) && *data == e {
                *length += (b - a) as u64;
                continue;
            }
        }
        list.push(Location::StartLength {
            begin: Address::Constant(addr + a as u64),
            length: (b - a) as u64,
            data: e,
        });
    }
    let tag = match v.param {
        true => gimli::DW_TAG_formal_parameter,
        false => gimli::DW_TAG_variable,
    };
    let id = unit.add(parent, tag);
    let name = strings.add(dwarf_name(&v.name));
    let loc = (!list.is_empty()).then(|| unit.locations.add(LocationList(list)));
    let e = unit.get_mut(id);
    e.set(gimli::DW_AT_name, AttributeValue::StringRef(name));
    e.set(gimli::DW_AT_type, AttributeValue::UnitRef(t));
    if let Some(loc) = loc {
        e.set(gimli::DW_AT_location, AttributeValue::LocationListRef(loc));
    }
}

/// The ELF object (module docs) describing `funcs`.
pub(crate) fn build_image(
    files: &[String],
    structs: &StructTable,
    comp_dir: &str,
    funcs: &[FuncInfo],
    cie: Option<CommonInformationEntry>,
) -> Result<Vec<u8>, Error> {
    let (machine, endian) =
        host_machine().ok_or_else(|| Error::Host("no ELF debug info for this host".into()))?;
    if endian != object::Endianness::default() {
        // gimli's `RunTimeEndian::default()` is the host's, as is object's.
        return Err(Error::Host("mismatched byte order".into()));
    }
    let sections = dwarf_sections(files, structs, comp_dir, funcs, cie)?;
    let lo = funcs.iter().map(|f| f.addr).min().unwrap_or(0);
    let hi = funcs.iter().map(|f| f.addr + f.size).max().unwrap_or(0);

    let mut buf = Vec::new();
    let mut w = Writer::new(endian, true, &mut buf);
    w.reserve_file_header();
    w.reserve_null_section_index();
    let text_name = w.add_section_name(b".text");
    let text = w.reserve_section_index();
    let mut debug = Vec::with_capacity(sections.len());
    for (name, data) in &sections {
        let n = w.add_section_name(name.as_bytes());
        let idx = w.reserve_section_index();
        debug.push((n, idx, data));
    }
    w.reserve_null_symbol_index();
    let syms: Vec<_> = funcs
        .iter()
        .map(|f| {
            let name = w.add_string(f.symbol.as_bytes());
            w.reserve_symbol_index(Some(text));
            (name, f)
        })
        .collect();
    w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();
    let offsets: Vec<usize> = debug
        .iter()
        .map(|(_, _, data)| w.reserve(data.len(), 1))
        .collect();
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_EXEC,
        e_machine: machine,
        e_entry: 0,
        e_flags: 0,
    })
    .map_err(|e| Error::Codegen(format!("debug info: {e}")))?;
    for (_, _, data) in &debug {
        w.write(data);
    }
    w.write_null_symbol();
    for (name, f) in &syms {
        w.write_symbol(&Sym {
            name: Some(*name),
            section: Some(text),
            st_info: (elf::STB_GLOBAL << 4) | elf::STT_FUNC,
            st_other: elf::STV_DEFAULT,
            st_shndx: 0,
            st_value: f.addr,
            st_size: f.size,
        });
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    w.write_section_header(&SectionHeader {
        name: Some(text_name),
        sh_type: elf::SHT_NOBITS,
        sh_flags: (elf::SHF_ALLOC | elf::SHF_EXECINSTR) as u64,
        sh_addr: lo,
        sh_offset: 0,
        sh_size: hi - lo,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: 16,
        sh_entsize: 0,
    });
    for ((name, _, data), off) in debug.iter().zip(&offsets) {
        w.write_section_header(&SectionHeader {
            name: Some(*name),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: 0,
            sh_addr: 0,
            sh_offset: *off as u64,
            sh_size: data.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1,
            sh_entsize: 0,
        });
    }
    w.write_symtab_section_header(1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    Ok(buf)
}

// ---- the GDB JIT interface ----

const JIT_NOACTION: u32 = 0;
const JIT_REGISTER_FN: u32 = 1;
const JIT_UNREGISTER_FN: u32 = 2;

/// `struct jit_code_entry` of the gdb manual.
#[repr(C)]
pub struct JitCodeEntry {
    next: *mut JitCodeEntry,
    prev: *mut JitCodeEntry,
    symfile_addr: *const u8,
    symfile_size: u64,
}

/// `struct jit_descriptor` of the gdb manual.
#[repr(C)]
pub struct JitDescriptor {
    version: u32,
    action_flag: u32,
    relevant_entry: *mut JitCodeEntry,
    first_entry: *mut JitCodeEntry,
}

/// The descriptor gdb reads; written only under [`LIST`].
#[repr(transparent)]
pub struct DescriptorCell(UnsafeCell<JitDescriptor>);

// SAFETY: every access from Rust goes through `LIST`'s lock; gdb reads it
// only while the process is stopped.
unsafe impl Sync for DescriptorCell {}

/// The descriptor gdb looks up by name.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static __jit_debug_descriptor: DescriptorCell =
    DescriptorCell(UnsafeCell::new(JitDescriptor {
        version: 1,
        action_flag: JIT_NOACTION,
        relevant_entry: null_mut(),
        first_entry: null_mut(),
    }));

/// gdb keeps a breakpoint here and reads the descriptor when it is hit.
#[no_mangle]
#[inline(never)]
pub extern "C" fn __jit_debug_register_code() {
    // An opaque use of the descriptor, so that neither this function nor
    // calls to it are optimized away.
    std::hint::black_box(&__jit_debug_descriptor);
}

/// Serialises every change to the descriptor and its list.
static LIST: Mutex<()> = Mutex::new(());

/// An object registered with gdb; unregistered on drop.
pub(crate) struct Registration {
    entry: *mut JitCodeEntry,
    image: Box<[u8]>,
}

// SAFETY: `entry` is owned by this registration and touched only under
// `LIST`'s lock; `image` is immutable.
unsafe impl Send for Registration {}
// SAFETY: `&Registration` gives access only to the immutable image.
unsafe impl Sync for Registration {}

impl Registration {
    /// The registered ELF object.
    pub fn image(&self) -> &[u8] {
        &self.image
    }
}

/// Registers `image` with gdb (a no-op when no debugger is attached).
pub(crate) fn register(image: Vec<u8>) -> Registration {
    let image = image.into_boxed_slice();
    let entry = Box::into_raw(Box::new(JitCodeEntry {
        next: null_mut(),
        prev: null_mut(),
        symfile_addr: image.as_ptr(),
        symfile_size: image.len() as u64,
    }));
    let _g = LIST.lock().unwrap_or_else(|p| p.into_inner());
    let d = __jit_debug_descriptor.0.get();
    // SAFETY: `d` is the static descriptor and `entry` a live allocation;
    // the lock excludes every other writer, and the list's entries are live
    // until unlinked under the same lock.
    unsafe {
        let first = (*d).first_entry;
        (*entry).next = first;
        if !first.is_null() {
            (*first).prev = entry;
        }
        (*d).first_entry = entry;
        (*d).relevant_entry = entry;
        (*d).action_flag = JIT_REGISTER_FN;
    }
    __jit_debug_register_code();
    // SAFETY: as above.
    unsafe { (*d).action_flag = JIT_NOACTION };
    Registration { entry, image }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let _g = LIST.lock().unwrap_or_else(|p| p.into_inner());
        let d = __jit_debug_descriptor.0.get();
        // SAFETY: `self.entry` is in the list (linked by `register`, only
        // unlinked here) and its neighbours are live; the lock excludes
        // every other writer.
        unsafe {
            let e = self.entry;
            let (prev, next) = ((*e).prev, (*e).next);
            if prev.is_null() {
                (*d).first_entry = next;
            } else {
                (*prev).next = next;
            }
            if !next.is_null() {
                (*next).prev = prev;
            }
            (*d).relevant_entry = e;
            (*d).action_flag = JIT_UNREGISTER_FN;
        }
        __jit_debug_register_code();
        // SAFETY: as above; gdb has read the entry, nothing points to it
        // any more, and it came from `Box::into_raw`.
        unsafe {
            (*d).action_flag = JIT_NOACTION;
            (*d).relevant_entry = null_mut();
            drop(Box::from_raw(self.entry));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile, Options};
    use object::read::elf::ElfFile64;
    use object::{Object, ObjectSection, ObjectSymbol};
    use weft_ir::ir::{BinaryOp, MemAccess};
    use weft_ir::{ArrayType, ElemType, FuncBuilder, FuncKind, Function, Module, Param, Scalar};

    /// `k.py`: kernel `double(x)` with `i = tid()` on line 3 and
    /// `x[i] = x[i] + x[i]` on lines 4 (load, add) and 5 (store).
    fn module() -> Module {
        let mut m = Module::new();
        let file = m.file_index("k.py");
        let arr = weft_ir::Type::Array(ArrayType {
            elem: ElemType::Scalar(Scalar::F32),
            ndim: 1,
        });
        let mut f = Function::new(
            "double",
            FuncKind::Kernel,
            vec![Param {
                name: "x".into(),
                ty: arr,
            }],
            vec![],
        );
        f.loc = Loc::new(file, 2, 1);
        let x = f.param_values()[0];
        {
            let mut b = FuncBuilder::new(&mut f, &m.structs);
            b.set_loc(Loc::new(file, 3, 5));
            let i = b.thread_id();
            b.func.value_names[i] = "i".into();
            let at = MemAccess {
                array: x,
                indices: vec![i],
                path: vec![],
            };
            b.set_loc(Loc::new(file, 4, 5));
            let v = b.load(at.clone());
            let d = b.binary(BinaryOp::Add, v, v);
            b.set_loc(Loc::new(file, 5, 5));
            b.store(at, d);
            b.return_(vec![]);
        }
        m.funcs.push(f);
        m
    }

    /// The tests that register objects run one at a time, so that a freed
    /// image's address cannot be reused by another test's while checked.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn registered(image: &[u8]) -> bool {
        let _g = LIST.lock().unwrap_or_else(|p| p.into_inner());
        let d = __jit_debug_descriptor.0.get();
        // SAFETY: the lock is held; entries in the list are live.
        unsafe {
            let mut e = (*d).first_entry;
            while !e.is_null() {
                if (*e).symfile_addr == image.as_ptr() && (*e).symfile_size == image.len() as u64 {
                    return true;
                }
                e = (*e).next;
            }
        }
        false
    }

    #[test]
    fn off_by_default() {
        let art = compile(
            &module(),
            &weft_ir::verify::verify_module(&module()).expect("verifies"),
            &Options::default(),
        )
        .unwrap();
        assert!(art.gdb_image().is_none());
    }

    #[test]
    fn image_has_symbols_and_line_rows() {
        let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        let m = module();
        let opts = Options {
            debug_info: true,
            ..Options::default()
        };
        let art = compile(
            &m,
            &weft_ir::verify::verify_module(&m).expect("verifies"),
            &opts,
        )
        .unwrap();
        let entry = art.kernel("double").unwrap().entry as usize as u64;
        let image = art.gdb_image().unwrap();
        let elf = ElfFile64::<object::Endianness>::parse(image).unwrap();
        assert_eq!(elf.elf_header().e_type.get(elf.endian()), elf::ET_EXEC);

        let text = elf.section_by_name(".text").unwrap();
        let sym = elf
            .symbols()
            .find(|s| s.name() == Ok("weft_0_double"))
            .unwrap();
        assert_eq!(sym.address(), entry);
        assert!(sym.size() > 0);
        assert!(text.address() <= entry && entry + sym.size() <= text.address() + text.size());
        let has_frame = elf.section_by_name(".debug_frame").is_some();
        assert!(has_frame);

        // The DWARF, read back with gimli.
        let load =
            |id: gimli::SectionId| -> Result<gimli::EndianSlice<'_, gimli::RunTimeEndian>, ()> {
                let data = elf
                    .section_by_name(id.name())
                    .and_then(|s| s.data().ok())
                    .unwrap_or(&[]);
                Ok(gimli::EndianSlice::new(
                    data,
                    gimli::RunTimeEndian::default(),
                ))
            };
        let dwarf = gimli::read::Dwarf::load(load).unwrap();
        let mut units = dwarf.units();
        let header = units.next().unwrap().unwrap();
        assert!(units.next().unwrap().is_none(), "one file, one unit");
        let unit = dwarf.unit(header).unwrap();
        let name = unit.name.unwrap();
        assert_eq!(name.slice(), b"k.py");

        // Subprogram `double` at the entry, with variables `tid` and `i`.
        let mut entries = unit.entries();
        let mut found = false;
        let mut vars = Vec::new();
        while let Some(e) = entries.next_dfs().unwrap() {
            if e.tag() == gimli::DW_TAG_variable {
                let n = e.attr_value(gimli::DW_AT_name).unwrap();
                let n = dwarf
                    .attr_string(&unit, n)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let Some(gimli::AttributeValue::UnitRef(t)) = e.attr_value(gimli::DW_AT_type)
                else {
                    panic!("{n} has no type");
                };
                let t = unit.entry(t).unwrap();
                let tn = dwarf
                    .attr_string(&unit, t.attr_value(gimli::DW_AT_name).unwrap())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let Some(gimli::AttributeValue::LocationListsRef(l)) =
                    e.attr_value(gimli::DW_AT_location)
                else {
                    panic!("{n} has no location list");
                };
                let mut locs = dwarf.locations(&unit, l).unwrap();
                let first = locs.next().unwrap().unwrap();
                assert!(first.range.begin >= entry && first.range.end <= entry + sym.size());
                vars.push((n, tn));
            }
            if e.tag() == gimli::DW_TAG_subprogram {
                let n = e.attr_value(gimli::DW_AT_name).unwrap();
                assert_eq!(dwarf.attr_string(&unit, n).unwrap().slice(), b"double");
                assert_eq!(
                    e.attr_value(gimli::DW_AT_low_pc),
                    Some(gimli::AttributeValue::Addr(entry))
                );
                found = true;
            }
        }
        assert!(found);
        vars.sort();
        assert_eq!(
            vars,
            [
                ("i".to_string(), "i32".to_string()),
                ("tid".into(), "i64".into())
            ]
        );

        // Line rows: inside the function, in k.py, the lines the IR has.
        let program = unit.line_program.clone().unwrap();
        let mut rows = program.rows();
        let mut lines = std::collections::BTreeSet::new();
        while let Some((header, row)) = rows.next_row().unwrap() {
            if row.end_sequence() {
                assert_eq!(row.address(), entry + sym.size());
                continue;
            }
            assert!(row.address() >= entry && row.address() < entry + sym.size());
            let line = row.line().map_or(0, |l| l.get());
            if line != 0 {
                let file = row.file(header).unwrap();
                let fname = dwarf.attr_string(&unit, file.path_name()).unwrap();
                assert_eq!(fname.slice(), b"k.py");
                lines.insert(line);
            }
        }
        assert!(lines.is_subset(&[2, 3, 4, 5].into()), "{lines:?}");
        assert!(lines.contains(&4) && lines.contains(&5), "{lines:?}");
    }

    #[test]
    fn registered_while_the_artifact_lives() {
        let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        let opts = Options {
            debug_info: true,
            ..Options::default()
        };
        let art = compile(
            &module(),
            &weft_ir::verify::verify_module(&module()).expect("verifies"),
            &opts,
        )
        .unwrap();
        let image = art.gdb_image().unwrap().to_vec();
        let (ptr, len) = (art.gdb_image().unwrap().as_ptr(), image.len());
        assert!(registered(art.gdb_image().unwrap()));
        drop(art);
        let _g = LIST.lock().unwrap_or_else(|p| p.into_inner());
        let d = __jit_debug_descriptor.0.get();
        // SAFETY: the lock is held; entries in the list are live.
        unsafe {
            assert_eq!((*d).version, 1);
            assert_eq!((*d).action_flag, JIT_NOACTION);
            let mut e = (*d).first_entry;
            while !e.is_null() {
                assert!(!((*e).symfile_addr == ptr && (*e).symfile_size == len as u64));
                e = (*e).next;
            }
        }
    }
}
