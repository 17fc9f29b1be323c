//! One URL classified once per tool call.
//!
//! A fetch is asked about twice in one tool call: its `pre_fetch_url`
//! payload says whether the URL is sensitive (adapters' `fetch_payload`),
//! and the URL matchers of that hook's rules look at it again. Each is a
//! whole WHATWG parse and classification (about 11 k instructions, a fifth
//! of a PicoClaw `web_fetch` request). Within [`one_call`], [`classify`]
//! remembers the last URL it classified on this thread and hands the same
//! answer back for the same text: [`super::classify`] reads nothing but
//! the text, so the answer is the one a second parse would give. Outside
//! a call nothing is remembered, so a benchmark's repeated decisions still
//! pay for their parse.

use super::UrlInfo;
use std::cell::RefCell;
use std::rc::Rc;

/// A URL's text and how it was classified.
type Classified = (Box<str>, Rc<UrlInfo>);

thread_local! {
    /// `None` outside a call; inside, the last URL classified, if any.
    static LAST: RefCell<Option<Option<Classified>>> = const { RefCell::new(None) };
}

/// Runs `f` as one tool call: URLs classified inside it are remembered
/// until it returns (a call inside another shares the outer one's memory).
pub fn one_call<T>(f: impl FnOnce() -> T) -> T {
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            if self.0 {
                LAST.with(|last| *last.borrow_mut() = None);
            }
        }
    }
    let entered = LAST.with(|last| {
        let mut last = last.borrow_mut();
        let outermost = last.is_none();
        if outermost {
            *last = Some(None);
        }
        outermost
    });
    let _leave = Leave(entered);
    f()
}

/// [`super::classify`], shared within one call (see the module docs).
pub fn classify(raw: &str) -> Rc<UrlInfo> {
    let known = LAST.with(|last| match &*last.borrow() {
        Some(Some((text, info))) if &**text == raw => Some(info.clone()),
        _ => None,
    });
    if let Some(info) = known {
        return info;
    }
    let info = Rc::new(super::classify(raw));
    LAST.with(|last| {
        if let Some(slot) = &mut *last.borrow_mut() {
            *slot = Some((raw.into(), info.clone()));
        }
    });
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_shares_one_classification_per_url_and_forgets_it_after() {
        let outside = [classify("http://127.0.0.1/"), classify("http://127.0.0.1/")];
        assert!(
            !Rc::ptr_eq(&outside[0], &outside[1]),
            "remembered outside a call"
        );
        one_call(|| {
            let a = classify("http://169.254.169.254/latest");
            let b = classify("http://169.254.169.254/latest");
            assert!(Rc::ptr_eq(&a, &b));
            assert_eq!(*a, super::super::classify("http://169.254.169.254/latest"));
            // Another URL is classified afresh, and its own answer given.
            let c = classify("https://docs.rs/");
            assert_eq!(*c, super::super::classify("https://docs.rs/"));
            assert_ne!(a.class, c.class);
            // A nested call keeps the outer call's memory.
            one_call(|| assert!(Rc::ptr_eq(&c, &classify("https://docs.rs/"))));
            assert!(Rc::ptr_eq(&c, &classify("https://docs.rs/")));
        });
        let after = [classify("https://docs.rs/"), classify("https://docs.rs/")];
        assert!(
            !Rc::ptr_eq(&after[0], &after[1]),
            "remembered after the call"
        );
    }
}
