//! The members of an inspect_ai `.eval` log (a zip) that its import reads, read from the
//! zip's bytes: `header.json`, `reductions.json` and the `samples/*.json` members, in the
//! order of the Python reading (`_member_order` in `evalmark.interop._inspect_log`).
//!
//! Only a plain zip is read, the kind Python's `zipfile` writes: the end of the central
//! directory in the last 22 bytes (no comment), with the zip64 end record and its locator
//! just before it when present (one disk; the entries counted right); no data before the
//! archive; each entry stored or deflated, not encrypted, without a zip64 extra field, named
//! in ASCII without NUL, no name twice. Each member read must start with a local header,
//! inflate to exactly its size and CRC-32, its deflate stream ending exactly at its
//! compressed size. Anything else gives up (`None`):
//! the caller reads the log the general way, which says what is wrong with it.

use std::borrow::Cow;
use std::cmp::Ordering;

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;
use rayon::prelude::*;
use rustc_hash::FxHashSet;

const END: usize = 22; // the end of central directory record (no comment)
const LOCATOR: usize = 20; // the zip64 end record's locator
const END64: usize = 56; // the zip64 end record (no extensible data)
const CENTRAL: usize = 46; // a central directory entry before its name
const LOCAL: usize = 30; // a local header before its name
const MAX_EXTRACT_VERSION: u8 = 63; // zipfile refuses a newer one
const MAX_RATIO: usize = 1100; // deflate inflates at most ~1032 times
/// The largest member inflated here (256 MiB): a larger size, true or forged, is left to the
/// general reading, so that no allocation here can fail (which would abort, not raise).
const MAX_MEMBER: usize = 1 << 28;

fn u16_at(data: &[u8], at: usize) -> Option<usize> {
    let bytes = data.get(at..at + 2)?;
    Some(u16::from_le_bytes([bytes[0], bytes[1]]) as usize)
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(data.get(at..at + 8)?.try_into().ok()?))
}

/// One entry of the central directory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry<'a> {
    pub name: &'a str,
    deflated: bool,
    crc: u32,
    packed: usize,
    size: usize,
    offset: usize,
}

/// The entries of the zip `data`, in the directory's order, or None for any zip but a plain
/// one (the module's docstring).
pub fn directory(data: &[u8]) -> Option<Vec<Entry<'_>>> {
    let end = data.len().checked_sub(END)?;
    if data[end..end + 4] != *b"PK\x05\x06" || u16_at(data, end + 20)? != 0 {
        return None;
    }
    if u32_at(data, end + 4)? != 0 {
        return None; // several disks
    }
    let mut count = [u16_at(data, end + 8)?, u16_at(data, end + 10)?].map(|n| n as u64);
    let mut size = u64::from(u32_at(data, end + 12)?);
    let mut start = u64::from(u32_at(data, end + 16)?);
    let mut records = end; // where the central directory ends
    if end >= LOCATOR && data[end - LOCATOR..end - LOCATOR + 4] == *b"PK\x06\x07" {
        let locator = end - LOCATOR;
        if u32_at(data, locator + 4)? != 0 || u32_at(data, locator + 16)? > 1 {
            return None; // several disks
        }
        let at = locator.checked_sub(END64)?;
        let plain = u64_at(data, at + 4)? == (END64 - 12) as u64 && u64_at(data, at + 16)? == 0;
        if data[at..at + 4] != *b"PK\x06\x06" || !plain || u64_at(data, locator + 8)? != at as u64 {
            return None; // extensible data, several disks, or the record elsewhere
        }
        count = [u64_at(data, at + 24)?, u64_at(data, at + 32)?];
        size = u64_at(data, at + 40)?;
        start = u64_at(data, at + 48)?;
        records = at;
    }
    if start.checked_add(size)? != records as u64 {
        return None; // data before the archive, or a damaged end record
    }
    let mut at = start as usize;
    let mut entries = Vec::new();
    let mut names = FxHashSet::default();
    while at < records {
        let head = data.get(at..at + CENTRAL)?;
        if head[..4] != *b"PK\x01\x02" || head[6] > MAX_EXTRACT_VERSION {
            return None;
        }
        let flags = u16_at(head, 8)?;
        let method = u16_at(head, 10)?;
        let (crc, packed, size) = (u32_at(head, 16)?, u32_at(head, 20)?, u32_at(head, 24)?);
        let (name_length, extra, comment) =
            (u16_at(head, 28)?, u16_at(head, 30)?, u16_at(head, 32)?);
        let offset = u32_at(head, 42)?;
        let name = data.get(at + CENTRAL..at + CENTRAL + name_length)?;
        let plain = flags & 1 == 0 && (method == 0 || method == 8) && extra == 0;
        let small = [packed, size, offset].iter().all(|&n| n != u32::MAX);
        if !plain || !small || !name.is_ascii() || name.contains(&0) {
            return None;
        }
        let name = std::str::from_utf8(name).ok()?;
        if !names.insert(name) {
            return None; // a name twice
        }
        entries.push(Entry {
            name,
            deflated: method == 8,
            crc,
            packed: packed as usize,
            size: size as usize,
            offset: offset as usize,
        });
        at += CENTRAL + name_length + extra + comment;
    }
    let counted = count.iter().all(|&n| n == entries.len() as u64);
    (at == records && counted).then_some(entries)
}

/// The bytes of member `entry` of the zip `data` (a stored one borrowed), checked against
/// its size and CRC-32; None when they differ or it cannot be read.
pub fn member<'a>(
    data: &'a [u8],
    entry: &Entry<'_>,
    state: &mut DecompressorOxide,
) -> Option<Cow<'a, [u8]>> {
    let head = data.get(entry.offset..entry.offset.checked_add(LOCAL)?)?;
    if head[..4] != *b"PK\x03\x04" {
        return None;
    }
    let start = entry.offset + LOCAL + u16_at(head, 26)? + u16_at(head, 28)?;
    let raw = data.get(start..start.checked_add(entry.packed)?)?;
    let bytes = if entry.deflated {
        let most = entry.packed.saturating_mul(MAX_RATIO).saturating_add(64);
        if entry.size > most.min(MAX_MEMBER) {
            return None;
        }
        let mut out = vec![0u8; entry.size];
        state.init();
        let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (status, read, written) = decompress(state, raw, &mut out, 0, flags);
        if status != TINFLStatus::Done || read != raw.len() || written != entry.size {
            return None;
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
    };
    (bytes.len() == entry.size && crc32fast::hash(&bytes) == entry.crc).then_some(bytes)
}

/// The members the import reads: `header.json`, `reductions.json` (when there and asked for,
/// as decided from the header) and the `samples/*.json` entries in the Python order.
pub struct Members<'a> {
    pub header: Cow<'a, [u8]>,
    pub reductions: Option<Cow<'a, [u8]>>,
    pub samples: Vec<Entry<'a>>,
}

/// The members of the `.eval` zip `data` the import reads (the samples not inflated yet:
/// [`each_sample`]); `wants_reductions` tells from the header's bytes whether
/// `reductions.json` is read. None when the zip is not a plain one, has no `header.json`, or
/// a member read is damaged.
pub fn members<'a>(
    data: &'a [u8],
    wants_reductions: impl FnOnce(&[u8]) -> Option<bool>,
) -> Option<Members<'a>> {
    let entries = directory(data)?;
    let mut state = Box::<DecompressorOxide>::default();
    let find = |name: &str| entries.iter().find(|entry| entry.name == name);
    let header = member(data, find("header.json")?, &mut state)?;
    let reductions = match find("reductions.json") {
        Some(entry) if wants_reductions(&header)? => Some(member(data, entry, &mut state)?),
        _ => None,
    };
    let mut samples: Vec<Entry<'a>> = entries
        .iter()
        .filter(|entry| entry.name.starts_with("samples/") && entry.name.ends_with(".json"))
        .copied()
        .collect();
    samples.sort_by(|a, b| member_order(a.name, b.name)); // stable, as Python's sorted
    Some(Members {
        header,
        reductions,
        samples,
    })
}

/// `read` of each member `samples` of the zip `data`, inflated and checked, in parallel (each
/// member read while its bytes are fresh; the results in the members' order, whatever the
/// threads); None when a member is damaged or `read` gives None for one.
pub fn each_sample<T: Send>(
    data: &[u8],
    samples: &[Entry<'_>],
    read: impl Fn(&[u8]) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    samples
        .par_iter()
        .map_init(Box::<DecompressorOxide>::default, |state, entry| {
            read(&member(data, entry, state)?)
        })
        .collect()
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|c| c.is_ascii_digit())
}

/// Two texts of digits compared as the integers they write (of any length).
fn by_value(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The parts of `samples/ID_epoch_N.json` the order reads: whether the id is a number, the
/// id, and the epoch's digits ("0" when not digits), as `_member_order` reads them.
fn order_key(name: &str) -> (bool, &str, &str) {
    let stem = &name["samples/".len()..name.len() - ".json".len()];
    let (id, epoch) = match stem.rfind("_epoch_") {
        Some(at) => (&stem[..at], &stem[at + "_epoch_".len()..]),
        None => ("", stem),
    };
    let epoch = if is_digits(epoch) { epoch } else { "0" };
    (!is_digits(id), id, epoch)
}

/// The order of two ASCII sample member names: numeric ids first, by value, then the other
/// ids as texts; then the epoch, by value.
pub fn member_order(a: &str, b: &str) -> Ordering {
    let (a_text, a_id, a_epoch) = order_key(a);
    let (b_text, b_id, b_epoch) = order_key(b);
    let ids = match (a_text, b_text) {
        (false, false) => by_value(a_id, b_id),
        (true, true) => a_id.cmp(b_id),
        _ => a_text.cmp(&b_text),
    };
    ids.then_with(|| by_value(a_epoch, b_epoch))
}

#[cfg(test)]
#[path = "eval_zip_tests.rs"]
pub(crate) mod tests;
