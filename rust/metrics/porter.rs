//! The Porter stemmer exactly as NLTK's `PorterStemmer()` runs it by default (mode
//! `NLTK_EXTENSIONS`), which is the stemmer rouge-score's `use_stemmer=True` uses.
//!
//! NLTK's mode differs from the 1980 paper in a few places, each kept here: a table of irregular
//! forms (`dying` → `die`, `news` → `news`, …); `ies`/`ied` on four-letter words keep the `e`
//! (`dies` → `die`); step 1c turns `y` into `i` only after a consonant that is not the first
//! letter; step 2 applies `alli` → `al` first and runs again, uses `bli` → `ble` instead of
//! `abli` → `able`, and adds `fulli` → `ful` and `logi` → `log`; the `*o` condition also holds
//! for a two-letter vowel-consonant stem. Words of one or two letters are returned as they are.
//!
//! Words are sequences of "letters": bytes for ASCII tokens, code points for others. Only the
//! ASCII letters a, e, i, o, u and y have roles; any other letter (a digit, a non-ASCII letter)
//! is a consonant, as in NLTK.

/// One unit of a word.
pub trait Letter: Copy + Eq {
    /// The letter as an ASCII byte, or 0x80 (matching no rule) when it is not ASCII.
    fn ascii(self) -> u8;
    /// The letter for an ASCII byte.
    fn from_ascii(b: u8) -> Self;
}

impl Letter for u8 {
    #[inline(always)]
    fn ascii(self) -> u8 {
        if self < 0x80 {
            self
        } else {
            0x80
        }
    }
    #[inline(always)]
    fn from_ascii(b: u8) -> Self {
        b
    }
}

impl Letter for u32 {
    #[inline(always)]
    fn ascii(self) -> u8 {
        if self < 0x80 {
            self as u8
        } else {
            0x80
        }
    }
    #[inline(always)]
    fn from_ascii(b: u8) -> Self {
        b as u32
    }
}

#[inline(always)]
fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// NLTK's irregular forms: word → stem, checked before any rule.
const IRREGULAR: [(&[u8], &[u8]); 16] = [
    (b"sky", b"sky"),
    (b"skies", b"sky"),
    (b"dying", b"die"),
    (b"lying", b"lie"),
    (b"tying", b"tie"),
    (b"news", b"news"),
    (b"innings", b"inning"),
    (b"inning", b"inning"),
    (b"outings", b"outing"),
    (b"outing", b"outing"),
    (b"cannings", b"canning"),
    (b"canning", b"canning"),
    (b"howe", b"howe"),
    (b"proceed", b"proceed"),
    (b"exceed", b"exceed"),
    (b"succeed", b"succeed"),
];

/// Whether `w[i]` is a consonant: not a vowel, and a `y` only when the letter before it is not
/// a consonant (a leading `y` is one).
fn is_consonant<T: Letter>(w: &[T], i: usize) -> bool {
    let c = w[i].ascii();
    if is_vowel(c) {
        return false;
    }
    if c != b'y' {
        return true;
    }
    // A run of y's alternates, starting from the letter before the run.
    let mut j = i;
    let mut flip = false;
    while j > 0 && w[j].ascii() == b'y' {
        flip = !flip;
        j -= 1;
    }
    is_vowel(w[j].ascii()) == flip
}

/// The measure m of a stem: the number of vowel-to-consonant transitions, [C](VC){m}[V].
fn measure<T: Letter>(w: &[T]) -> usize {
    let mut m = 0;
    let mut prev_consonant = false;
    let mut prev_vowel = false;
    for (i, &ch) in w.iter().enumerate() {
        let c = ch.ascii();
        let consonant = if is_vowel(c) {
            false
        } else if c == b'y' {
            i == 0 || !prev_consonant
        } else {
            true
        };
        if consonant && prev_vowel {
            m += 1;
        }
        prev_consonant = consonant;
        prev_vowel = !consonant;
    }
    m
}

fn contains_vowel<T: Letter>(w: &[T]) -> bool {
    let mut prev_consonant = false;
    for (i, &ch) in w.iter().enumerate() {
        let c = ch.ascii();
        let consonant = if is_vowel(c) {
            false
        } else if c == b'y' {
            i == 0 || !prev_consonant
        } else {
            true
        };
        if !consonant {
            return true;
        }
        prev_consonant = consonant;
    }
    false
}

/// Condition *d: the word ends with a double consonant.
fn ends_double_consonant<T: Letter>(w: &[T]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

/// Condition *o: the word ends consonant-vowel-consonant, the last not w, x or y; in NLTK's
/// mode also a two-letter word vowel-consonant.
fn ends_cvc<T: Letter>(w: &[T]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1].ascii(), b'w' | b'x' | b'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

#[inline]
fn ends_with<T: Letter>(w: &[T], suffix: &[u8]) -> bool {
    w.len() >= suffix.len()
        && w[w.len() - suffix.len()..]
            .iter()
            .zip(suffix)
            .all(|(&c, &s)| c.ascii() == s)
}

fn replace_tail<T: Letter>(w: &mut Vec<T>, cut: usize, with: &[u8]) {
    w.truncate(w.len() - cut);
    w.extend(with.iter().map(|&b| T::from_ascii(b)));
}

/// When a rule's suffix matches, whether its condition lets it apply.
#[derive(Clone, Copy)]
enum Cond {
    Always,
    /// m(stem) > 0
    M0,
    /// m(stem) > 1
    M1,
    /// m(stem) > 1 and the stem ends in s or t
    Ion,
    /// m(word minus the last three letters) > 0: the `l` of `logi` stays with the stem
    Logi,
}

fn holds<T: Letter>(cond: Cond, w: &[T], suffix_len: usize) -> bool {
    let stem = &w[..w.len() - suffix_len];
    match cond {
        Cond::Always => true,
        Cond::M0 => measure(stem) > 0,
        Cond::M1 => measure(stem) > 1,
        Cond::Ion => {
            measure(stem) > 1 && matches!(stem.last().map(|c| c.ascii()), Some(b's' | b't'))
        }
        Cond::Logi => measure(&w[..w.len() - 3]) > 0,
    }
}

/// NLTK's `_apply_rule_list` for plain suffix rules: the first rule whose suffix ends the word
/// decides; it applies when its condition holds, and no later rule is tried either way.
fn apply_rules<T: Letter>(w: &mut Vec<T>, rules: &[(&[u8], &[u8], Cond)]) {
    for &(suffix, replacement, cond) in rules {
        if ends_with(w, suffix) {
            if holds(cond, w, suffix.len()) {
                replace_tail(w, suffix.len(), replacement);
            }
            return;
        }
    }
}

fn step1a<T: Letter>(w: &mut Vec<T>) {
    if w.len() == 4 && ends_with(w, b"ies") {
        replace_tail(w, 3, b"ie");
        return;
    }
    apply_rules(
        w,
        &[
            (b"sses", b"ss", Cond::Always),
            (b"ies", b"i", Cond::Always),
            (b"ss", b"ss", Cond::Always),
            (b"s", b"", Cond::Always),
        ],
    );
}

fn step1b<T: Letter>(w: &mut Vec<T>) {
    if ends_with(w, b"ied") {
        let with: &[u8] = if w.len() == 4 { b"ie" } else { b"i" };
        replace_tail(w, 3, with);
        return;
    }
    if ends_with(w, b"eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            w.pop();
        }
        return;
    }
    let cut = if ends_with(w, b"ed") {
        2
    } else if ends_with(w, b"ing") {
        3
    } else {
        return;
    };
    if !contains_vowel(&w[..w.len() - cut]) {
        return;
    }
    w.truncate(w.len() - cut);
    for (suffix, with) in [(b"at", b"ate"), (b"bl", b"ble"), (b"iz", b"ize")] {
        if ends_with(w, suffix) {
            replace_tail(w, 2, with);
            return;
        }
    }
    if ends_double_consonant(w) {
        if !matches!(w[w.len() - 1].ascii(), b'l' | b's' | b'z') {
            w.pop();
        }
        return;
    }
    if measure(w) == 1 && ends_cvc(w) {
        w.push(T::from_ascii(b'e'));
    }
}

fn step1c<T: Letter>(w: &mut [T]) {
    let n = w.len();
    if n >= 1 && w[n - 1].ascii() == b'y' && n - 1 > 1 && is_consonant(w, n - 2) {
        w[n - 1] = T::from_ascii(b'i');
    }
}

const STEP2: [(&[u8], &[u8], Cond); 22] = [
    (b"ational", b"ate", Cond::M0),
    (b"tional", b"tion", Cond::M0),
    (b"enci", b"ence", Cond::M0),
    (b"anci", b"ance", Cond::M0),
    (b"izer", b"ize", Cond::M0),
    (b"bli", b"ble", Cond::M0),
    (b"alli", b"al", Cond::M0),
    (b"entli", b"ent", Cond::M0),
    (b"eli", b"e", Cond::M0),
    (b"ousli", b"ous", Cond::M0),
    (b"ization", b"ize", Cond::M0),
    (b"ation", b"ate", Cond::M0),
    (b"ator", b"ate", Cond::M0),
    (b"alism", b"al", Cond::M0),
    (b"iveness", b"ive", Cond::M0),
    (b"fulness", b"ful", Cond::M0),
    (b"ousness", b"ous", Cond::M0),
    (b"aliti", b"al", Cond::M0),
    (b"iviti", b"ive", Cond::M0),
    (b"biliti", b"ble", Cond::M0),
    (b"fulli", b"ful", Cond::M0),
    (b"logi", b"log", Cond::Logi),
];

fn step2<T: Letter>(w: &mut Vec<T>) {
    // NLTK applies alli -> al first and, when it applies, runs step 2 again on the result.
    while ends_with(w, b"alli") && measure(&w[..w.len() - 4]) > 0 {
        replace_tail(w, 4, b"al");
    }
    apply_rules(w, &STEP2);
}

const STEP3: [(&[u8], &[u8], Cond); 7] = [
    (b"icate", b"ic", Cond::M0),
    (b"ative", b"", Cond::M0),
    (b"alize", b"al", Cond::M0),
    (b"iciti", b"ic", Cond::M0),
    (b"ical", b"ic", Cond::M0),
    (b"ful", b"", Cond::M0),
    (b"ness", b"", Cond::M0),
];

const STEP4: [(&[u8], &[u8], Cond); 19] = [
    (b"al", b"", Cond::M1),
    (b"ance", b"", Cond::M1),
    (b"ence", b"", Cond::M1),
    (b"er", b"", Cond::M1),
    (b"ic", b"", Cond::M1),
    (b"able", b"", Cond::M1),
    (b"ible", b"", Cond::M1),
    (b"ant", b"", Cond::M1),
    (b"ement", b"", Cond::M1),
    (b"ment", b"", Cond::M1),
    (b"ent", b"", Cond::M1),
    (b"ion", b"", Cond::Ion),
    (b"ou", b"", Cond::M1),
    (b"ism", b"", Cond::M1),
    (b"ate", b"", Cond::M1),
    (b"iti", b"", Cond::M1),
    (b"ous", b"", Cond::M1),
    (b"ive", b"", Cond::M1),
    (b"ize", b"", Cond::M1),
];

fn step5a<T: Letter>(w: &mut Vec<T>) {
    if ends_with(w, b"e") {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            w.pop();
        }
    }
}

fn step5b<T: Letter>(w: &mut Vec<T>) {
    if ends_with(w, b"ll") && measure(&w[..w.len() - 1]) > 1 {
        w.pop();
    }
}

/// Stem `word` in place. The word must already be lowercase (rouge-score lowercases the whole
/// text before stemming; NLTK's own `lower()` is then a no-op).
pub fn stem<T: Letter>(word: &mut Vec<T>) {
    if word.len() <= 8 {
        if let Some(&(_, to)) = IRREGULAR
            .iter()
            .find(|(from, _)| from.len() == word.len() && ends_with(word, from))
        {
            word.clear();
            word.extend(to.iter().map(|&b| T::from_ascii(b)));
            return;
        }
    }
    if word.len() <= 2 {
        return;
    }
    step1a(word);
    step1b(word);
    step1c(word);
    step2(word);
    apply_rules(word, &STEP3);
    apply_rules(word, &STEP4);
    step5a(word);
    step5b(word);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(word: &str) -> String {
        let mut w = word.as_bytes().to_vec();
        stem(&mut w);
        String::from_utf8(w).unwrap()
    }

    fn s32(word: &str) -> String {
        let mut w: Vec<u32> = word.chars().map(|c| c as u32).collect();
        stem(&mut w);
        w.iter().map(|&c| char::from_u32(c).unwrap()).collect()
    }

    #[test]
    fn paper_examples() {
        for (w, want) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("digitizer", "digit"),
            ("generalization", "gener"),
            ("hopefulness", "hope"),
            ("electrical", "electr"),
            ("goodness", "good"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("adoption", "adopt"),
            ("activate", "activ"),
            ("effective", "effect"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
        ] {
            assert_eq!(s(w), want, "{w}");
        }
    }

    #[test]
    fn nltk_extensions() {
        for (w, want) in [
            ("dies", "die"),
            ("flies", "fli"),
            ("died", "die"),
            ("spied", "spi"),
            ("dying", "die"),
            ("skies", "sky"),
            ("news", "news"),
            ("innings", "inning"),
            ("proceed", "proceed"),
            ("enjoy", "enjoy"),
            ("spy", "spi"),
            ("by", "by"),
            ("radically", "radic"),
            ("archaeology", "archaeolog"),
            ("geology", "geolog"),
            ("hopefully", "hope"),
            ("sensibility", "sensibl"),
        ] {
            assert_eq!(s(w), want, "{w}");
        }
    }

    #[test]
    fn y_runs_alternate() {
        assert!(is_consonant(b"y", 0));
        assert!(!is_consonant(b"by", 1));
        assert!(is_consonant(b"ay", 1));
        assert!(!is_consonant(b"yy", 1));
        assert!(is_consonant(b"yyy", 2));
        assert!(!is_consonant(b"ayy", 2));
        assert_eq!(measure(b"yyyyyyyy".as_slice()), 3);
        // A long run of y's takes linear time (no recursion).
        let mut w = vec![b'y'; 100_000];
        stem(&mut w);
        assert!(w.len() <= 100_000);
    }

    #[test]
    fn equals_nltk_on_the_vectors() {
        let data = include_str!("testdata/porter_nltk.tsv");
        let mut checked = 0;
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let (word, want) = line.split_once('\t').expect("word<TAB>stem");
            assert_eq!(s(word), want, "{word}");
            assert_eq!(s32(word), want, "{word} as code points");
            checked += 1;
        }
        assert!(checked > 5000, "{checked}");
    }

    #[test]
    fn code_points_stem_like_bytes() {
        for w in ["generalization", "running", "happiness", "caresses"] {
            assert_eq!(s32(w), s(w));
        }
        // A non-ASCII letter is a consonant.
        assert_eq!(s32("caféing"), "caféing".replace("ing", ""));
        assert_eq!(s32("zürich"), "zürich");
    }
}
