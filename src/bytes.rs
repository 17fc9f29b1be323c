//! Byte searches that never ask the CPU what it supports.
//!
//! The `memchr` crate picks AVX2 or SSE2 at its first search by asking the
//! CPU (std's feature detection: seven `cpuid`, each a VM exit of tens of
//! µs on virtual machines), unless the build already knows (`cargo
//! plugin-build` has `target-cpu=native`). A hook call is one short process
//! whose searches cover a shell line or a stored record, where SSE2 (part
//! of every x86-64) is as fast as AVX2, so a plain build's cold call
//! (`cargo install`) should not pay for the question. The cold path uses
//! these instead of `memchr::memchr` and friends; a build that knows AVX2
//! at compile time still gets it, without asking.

/// The first `needle` in `haystack`.
pub fn find(needle: u8, haystack: &[u8]) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    if let Some(one) = memchr::arch::x86_64::sse2::memchr::One::new(needle) {
        return one.find(haystack);
    }
    memchr::memchr(needle, haystack)
}

/// The first `a` or `b` in `haystack`.
pub fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    if let Some(two) = memchr::arch::x86_64::sse2::memchr::Two::new(a, b) {
        return two.find(haystack);
    }
    memchr::memchr2(a, b, haystack)
}

/// Every position of `needle` in `haystack`, in order.
pub fn positions(needle: u8, haystack: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let i = at + find(needle, haystack.get(at..)?)?;
        at = i + 1;
        Some(i)
    })
}

/// How many times `needle` occurs in `haystack`.
pub fn count(needle: u8, haystack: &[u8]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    if let Some(one) = memchr::arch::x86_64::sse2::memchr::One::new(needle) {
        return one.count(haystack);
    }
    memchr::memchr_iter(needle, haystack).count()
}

/// Whether `needle` occurs in `haystack` (Two-Way, no vector prefilter:
/// `memchr::memmem` asks the CPU for one on haystacks of 64 bytes or more).
/// A typical command line is shorter than building the Two-Way searcher
/// costs (about 300 instructions), so those are searched from each
/// occurrence of the needle's first byte.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    const SHORT: usize = 128;
    match needle.split_first() {
        None => true,
        Some((first, rest)) if haystack.len() <= SHORT => {
            let mut at = 0;
            while let Some(i) = find(*first, &haystack[at..]) {
                let start = at + i + 1;
                if haystack[start..].starts_with(rest) {
                    return true;
                }
                at = start;
            }
            false
        }
        Some(_) => memchr::arch::all::twoway::Finder::new(needle)
            .find(haystack, needle)
            .is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as the `memchr` crate on every alignment and length
    /// around the vector widths.
    #[test]
    fn searches_agree_with_memchr() {
        let sample = b"ab\ncd|e\xFFf[case ";
        let text: Vec<u8> = (0..300).map(|i| sample[i * 7 % sample.len()]).collect();
        for start in 0..40 {
            for end in (start..text.len()).step_by(13) {
                let hay = &text[start..end];
                for n in [b'\n', b'|', 0xFF, b'z'] {
                    assert_eq!(find(n, hay), memchr::memchr(n, hay));
                    assert_eq!(count(n, hay), memchr::memchr_iter(n, hay).count());
                    assert!(positions(n, hay).eq(memchr::memchr_iter(n, hay)));
                    assert_eq!(find2(n, b'[', hay), memchr::memchr2(n, b'[', hay));
                }
                for w in [
                    &b"case"[..],
                    b"cd",
                    b"zz",
                    b"",
                    b"c",
                    b"e\xFFf[",
                    b"|e\xFFf[case |",
                ] {
                    assert_eq!(
                        contains(hay, w),
                        memchr::memmem::find(hay, w).is_some(),
                        "{w:?}"
                    );
                }
            }
        }
    }
}
