//! Tests of the `.eval` zip reader, on zips written here byte by byte.

use super::*;

/// A zip member to write: name, bytes, deflated or stored.
pub(crate) type Part<'a> = (&'a str, &'a [u8], bool);

fn push16(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u16).to_le_bytes());
}

fn push32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

/// A zip of `parts` as Python's zipfile writes it (zip64 end records with `zip64`).
pub(crate) fn write_zip(parts: &[Part<'_>], zip64: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, bytes, deflated) in parts {
        let packed = if *deflated {
            miniz_oxide::deflate::compress_to_vec(bytes, 5)
        } else {
            bytes.to_vec()
        };
        let fields = |head: &mut Vec<u8>| {
            push16(head, 20); // version needed
            push16(head, 0); // flags
            push16(head, if *deflated { 8 } else { 0 });
            push32(head, 0); // time and date
            head.extend_from_slice(&crc32fast::hash(bytes).to_le_bytes());
            push32(head, packed.len());
            push32(head, bytes.len());
            push16(head, name.len());
            push16(head, 0); // extra
        };
        central.extend_from_slice(b"PK\x01\x02");
        push16(&mut central, 20); // version made by
        fields(&mut central);
        push16(&mut central, 0); // comment
        push16(&mut central, 0); // disk
        push16(&mut central, 0); // internal attributes
        push32(&mut central, 0); // external attributes
        push32(&mut central, out.len());
        central.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"PK\x03\x04");
        fields(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&packed);
    }
    let start = out.len();
    out.extend_from_slice(&central);
    let count = parts.len();
    if zip64 {
        let record = out.len();
        out.extend_from_slice(b"PK\x06\x06");
        out.extend_from_slice(&44u64.to_le_bytes());
        push16(&mut out, 45);
        push16(&mut out, 45);
        push32(&mut out, 0);
        push32(&mut out, 0);
        out.extend_from_slice(&(count as u64).to_le_bytes());
        out.extend_from_slice(&(count as u64).to_le_bytes());
        out.extend_from_slice(&(central.len() as u64).to_le_bytes());
        out.extend_from_slice(&(start as u64).to_le_bytes());
        out.extend_from_slice(b"PK\x06\x07");
        push32(&mut out, 0);
        out.extend_from_slice(&(record as u64).to_le_bytes());
        push32(&mut out, 1);
    }
    out.extend_from_slice(b"PK\x05\x06");
    push32(&mut out, 0); // disks
    let small = if zip64 { 0xFFFF } else { count };
    push16(&mut out, small);
    push16(&mut out, small);
    push32(&mut out, if zip64 { 0xFFFF_FFFF } else { central.len() });
    push32(&mut out, if zip64 { 0xFFFF_FFFF } else { start });
    push16(&mut out, 0); // comment
    out
}

const PARTS: [Part<'static>; 6] = [
    ("samples/b_epoch_1.json", b"{\"id\": \"b\"}", true),
    ("header.json", b"{\"eval\": {}}", true),
    ("samples/10_epoch_1.json", b"10", false),
    ("_journal/start.json", b"[]", true),
    ("samples/9_epoch_2.json", b"9-2", true),
    ("samples/9_epoch_1.json", b" 9-1 ", false),
];

fn read_all(data: &[u8]) -> Option<Vec<Vec<u8>>> {
    let found = members(data, |_| Some(true))?;
    let mut all = vec![found.header.to_vec()];
    all.extend(each_sample(data, &found.samples, |m| Some(m.to_vec()))?);
    Some(all)
}

#[test]
fn reads_the_members_in_the_python_order() {
    for zip64 in [false, true] {
        let zip = write_zip(&PARTS, zip64);
        let all = read_all(&zip).unwrap();
        let expected: [&[u8]; 5] = [
            b"{\"eval\": {}}",
            b" 9-1 ",
            b"9-2",
            b"10",
            b"{\"id\": \"b\"}",
        ];
        assert_eq!(all, expected.map(<[u8]>::to_vec).to_vec());
        let names: Vec<_> = directory(&zip).unwrap().iter().map(|e| e.name).collect();
        assert_eq!(names, PARTS.map(|p| p.0).to_vec());
    }
}

#[test]
fn reads_reductions_only_when_asked() {
    let mut parts = PARTS.to_vec();
    parts.push(("reductions.json", b"[1]", true));
    let zip = write_zip(&parts, false);
    let asked = members(&zip, |header| Some(header == b"{\"eval\": {}}")).unwrap();
    assert_eq!(asked.reductions.as_deref(), Some(&b"[1]"[..]));
    assert!(members(&zip, |_| Some(false)).unwrap().reductions.is_none());
    assert!(members(&zip, |_| None).is_none());
    assert!(members(&write_zip(&PARTS, false), |_| None).is_some()); // no reductions.json
}

#[test]
fn gives_up_without_a_header() {
    let zip = write_zip(&PARTS[2..], false);
    assert!(directory(&zip).is_some());
    assert!(read_all(&zip).is_none());
    assert!(read_all(&write_zip(&[], false)).is_none());
}

#[test]
fn any_cut_or_prefix_or_comment_gives_up() {
    let zip = write_zip(&PARTS, false);
    for end in 0..zip.len() {
        assert!(read_all(&zip[..end]).is_none(), "{end}");
    }
    let mut prefixed = b"#!".to_vec();
    prefixed.extend_from_slice(&zip);
    assert!(read_all(&prefixed).is_none());
    let mut commented = zip.clone();
    let at = commented.len() - 2;
    commented[at] = 2;
    commented.extend_from_slice(b"hi");
    assert!(read_all(&commented).is_none());
}

#[test]
fn a_changed_byte_of_a_member_read_gives_up() {
    let zip = write_zip(&PARTS, false);
    let entries = directory(&zip).unwrap();
    let read = |name: &str| name == "header.json" || name.starts_with("samples/");
    let original = read_all(&zip);
    let (mut checked, mut refused) = (0, 0);
    for entry in entries.iter().filter(|e| read(e.name)) {
        let start = entry.offset + LOCAL + entry.name.len();
        for at in start..start + entry.packed {
            let mut changed = zip.clone();
            changed[at] ^= 0x20;
            let found = read_all(&changed);
            // a bit past a deflate stream's end changes nothing it holds
            assert!(found.is_none() || found == original, "{} {at}", entry.name);
            checked += 1;
            refused += usize::from(found.is_none());
        }
    }
    let deflated = 3; // at most the last byte of each deflate stream
    assert!(
        checked > 30 && refused + deflated >= checked,
        "{refused} of {checked}"
    );
    // a member not read may be damaged
    let journal = entries
        .iter()
        .find(|e| e.name.starts_with("_journal"))
        .unwrap();
    let mut changed = zip.clone();
    changed[journal.offset + LOCAL + journal.name.len()] ^= 0x20;
    assert!(read_all(&changed).is_some());
}

#[test]
fn gives_up_on_an_unusual_entry() {
    let zip = write_zip(&PARTS, false);
    let first = directory(&zip).unwrap().len(); // entries before
    assert_eq!(first, PARTS.len());
    let central = u32_at(&zip, zip.len() - 6).unwrap() as usize; // the first entry
    let set = |at: usize, bytes: &[u8]| {
        let mut changed = zip.clone();
        changed[central + at..central + at + bytes.len()].copy_from_slice(bytes);
        changed
    };
    assert!(directory(&set(8, &[1, 0])).is_none()); // encrypted
    assert!(directory(&set(10, &[12, 0])).is_none()); // bzip2
    assert!(directory(&set(10, &[93, 0])).is_none()); // Zstandard
    assert!(directory(&set(6, &[64])).is_none()); // a newer zip version
    assert!(directory(&set(20, &[0xFF; 4])).is_none()); // zip64 sizes
    assert!(directory(&set(0, b"PK\x01\x03")).is_none());
    assert!(directory(&set(CENTRAL, b"sam\0les")).is_none());
    assert!(directory(&set(CENTRAL, b"sam\xc3\xa9es")).is_none());
    assert!(read_all(&set(42, &[1])).is_none()); // no local header there
    assert!(read_all(&set(16, &[0, 0])).is_none()); // another CRC-32
    assert!(read_all(&set(24, &[0])).is_none()); // another size
    let end = zip.len() - END;
    for (at, value) in [(8, 5u8), (10, 7), (4, 1), (6, 1)] {
        let mut changed = zip.clone();
        changed[end + at] = value; // another count of entries, or several disks
        assert!(directory(&changed).is_none(), "{at}");
    }
    let twice = write_zip(&[PARTS[1], PARTS[2], PARTS[2]], false);
    assert!(directory(&twice).is_none());
}

#[test]
fn a_deflate_stream_must_end_at_the_member_end() {
    let long = b"abcabcabcabcabcabcabcabcabc".repeat(9);
    let mut parts = vec![PARTS[1]];
    parts.push(("samples/1_epoch_1.json", &long, true));
    let zip = write_zip(&parts, false);
    assert!(read_all(&zip).is_some());
    let entries = directory(&zip).unwrap();
    let entry = entries[1];
    let mut state = Box::<DecompressorOxide>::default();
    assert_eq!(member(&zip, &entry, &mut state).as_deref(), Some(&long[..]));
    let shorter = Entry {
        packed: entry.packed - 1,
        ..entry
    };
    assert!(member(&zip, &shorter, &mut state).is_none());
    let longer = Entry {
        packed: entry.packed + 1,
        ..entry
    };
    assert!(member(&zip, &longer, &mut state).is_none());
    let huge = Entry {
        size: entry.packed * 2000,
        ..entry
    };
    assert!(member(&zip, &huge, &mut state).is_none());
}

#[test]
fn a_member_larger_than_the_bound_is_left_to_the_general_reading() {
    // a sound deflated member one byte over MAX_MEMBER: given up before anything is allocated
    // for it (a forged size as large would otherwise make the allocation abort)
    let zeros = vec![0u8; MAX_MEMBER + 1];
    let packed = miniz_oxide::deflate::compress_to_vec(&zeros, 1);
    let mut data = vec![0u8; LOCAL];
    data[..4].copy_from_slice(b"PK\x03\x04");
    data.extend_from_slice(&packed);
    let entry = Entry {
        name: "samples/1_epoch_1.json",
        deflated: true,
        crc: crc32fast::hash(&zeros),
        packed: packed.len(),
        size: zeros.len(),
        offset: 0,
    };
    assert!(entry.size <= entry.packed * MAX_RATIO); // the deflate ratio alone lets it be
    let mut state = Box::<DecompressorOxide>::default();
    assert!(member(&data, &entry, &mut state).is_none());
    let smaller = &zeros[..1000];
    let packed = miniz_oxide::deflate::compress_to_vec(smaller, 1);
    data.truncate(LOCAL);
    data.extend_from_slice(&packed);
    let entry = Entry {
        crc: crc32fast::hash(smaller),
        packed: packed.len(),
        size: smaller.len(),
        ..entry
    };
    assert_eq!(member(&data, &entry, &mut state).as_deref(), Some(smaller));
}

#[test]
fn many_members_need_the_zip64_records() {
    let names: Vec<String> = (0..70_000).map(|i| format!("samples/{i}.json")).collect();
    let mut parts: Vec<Part<'_>> = vec![PARTS[1]];
    parts.extend(names.iter().map(|name| (name.as_str(), &b"1"[..], false)));
    let zip = write_zip(&parts, true);
    assert_eq!(read_all(&zip).unwrap().len(), 70_001);
    let mut no_locator = zip.clone();
    let at = zip.len() - END - LOCATOR;
    no_locator[at] = b'X'; // the count alone is not enough
    assert!(directory(&no_locator).is_none());
    let record = at - END64;
    // the record elsewhere, another count, a record with more data, a disk
    for at in [at + 8, record + 24, record + 4, record + 16] {
        let mut changed = zip.clone();
        changed[at] ^= 1;
        assert!(directory(&changed).is_none(), "{at}");
    }
}

#[test]
fn orders_the_sample_members_as_python() {
    // sorted(names, key=_member_order) in Python
    let expected = [
        "samples/0_epoch_1.json",
        "samples/1_epoch_1.json",
        "samples/2_epoch_1.json",
        "samples/2_epoch_10.json",
        "samples/10_epoch_02.json",
        "samples/10_epoch_3.json",
        "samples/99999999999999999999999_epoch_1.json",
        "samples/100000000000000000000000_epoch_1.json",
        "samples/.json",
        "samples/007.json",
        "samples/12.json",
        "samples/1a_epoch_1.json",
        "samples/A_epoch_x.json",
        "samples/A_epoch_1.json",
        "samples/a_epoch__epoch_1.json",
        "samples/a_epoch_1_epoch_2.json",
    ];
    let mut names = expected.to_vec();
    names.reverse();
    names.sort_by(|a, b| member_order(a, b));
    assert_eq!(names, expected);
    // the same id written twice: kept in the directory's order (a stable sort)
    let tie = ["samples/1_epoch_1.json", "samples/01_epoch_1.json"];
    for pair in [tie, [tie[1], tie[0]]] {
        let mut names = pair.to_vec();
        names.sort_by(|a, b| member_order(a, b));
        assert_eq!(names, pair);
    }
}
