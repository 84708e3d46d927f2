//! The regular expressions of specs (member-name patterns, JSON Schema `pattern` and
//! `patternProperties`). In WebAssembly they run on the host's `RegExp` with the `u` flag:
//! ECMA-262 is the dialect JSON Schema specifies (ajv, which the JS validators use, does the
//! same), and the module carries no regex engine. Native builds use regex-lite (Rust's
//! syntax, linear time). The built-in specs use the syntax both share.

/// A compiled pattern; matching searches (it is not anchored unless the pattern is).
pub(crate) struct Pattern {
    text: String,
    /// None for the empty pattern, which matches everything: no call to the engine (in
    /// WebAssembly a call into JS per member name).
    regex: Option<imp::Regex>,
}

impl Pattern {
    /// Compiles `text`, or says why it is not a valid pattern.
    pub(crate) fn new(text: &str) -> Result<Pattern, String> {
        Ok(Pattern {
            text: text.to_string(),
            regex: match text {
                "" => None,
                _ => Some(imp::Regex::new(text)?),
            },
        })
    }

    /// Whether the pattern matches somewhere in `s`.
    pub(crate) fn is_match(&self, s: &str) -> bool {
        self.regex.as_ref().is_none_or(|r| r.is_match(s))
    }

    /// The pattern as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = RegExp)]
        type JsRegExp;
        #[wasm_bindgen(constructor, catch, js_class = "RegExp")]
        fn new(pattern: &str, flags: &str) -> Result<JsRegExp, JsValue>;
        #[wasm_bindgen(method, js_class = "RegExp")]
        fn test(this: &JsRegExp, text: &str) -> bool;
    }

    pub(super) struct Regex(JsRegExp);

    impl Regex {
        pub(super) fn new(text: &str) -> Result<Regex, String> {
            JsRegExp::new(text, "u").map(Regex).map_err(|e| {
                js_sys::Error::from(e)
                    .message()
                    .as_string()
                    .unwrap_or_else(|| "not a valid regular expression".to_string())
            })
        }

        pub(super) fn is_match(&self, s: &str) -> bool {
            self.0.test(s)
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    /// The most memory one compiled pattern may take.
    const SIZE_LIMIT: usize = 1 << 20;

    pub(super) struct Regex(regex_lite::Regex);

    impl Regex {
        pub(super) fn new(text: &str) -> Result<Regex, String> {
            regex_lite::RegexBuilder::new(text)
                .size_limit(SIZE_LIMIT)
                .build()
                .map(Regex)
                .map_err(|e| e.to_string())
        }

        pub(super) fn is_match(&self, s: &str) -> bool {
            self.0.is_match(s)
        }
    }
}
