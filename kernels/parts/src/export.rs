//! The C-ABI interface of a WebAssembly part (feature `export`), which ts/parts/codec-calls.ts
//! drives: the caller writes the codec's name and variant (`"lzma xz"`) into the buffer
//! [`zom_text`] gives and the encoded bytes into the one [`zom_input`] gives, calls
//! [`zom_decode`] with the most bytes the chunk allows, and reads the result (the decoded
//! bytes, or the error's message when it returned 1) at [`zom_output`], [`zom_output_len`]
//! bytes long. One call at a time: the part runs on one thread and keeps one set of buffers.

#![allow(unsafe_code)]

use std::cell::RefCell;

#[derive(Default)]
struct Buffers {
    text: Vec<u8>,
    input: Vec<u8>,
    output: Vec<u8>,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// A buffer of `len` bytes for the codec's name and variant, separated by a space; its address.
#[no_mangle]
pub extern "C" fn zom_text(len: usize) -> *mut u8 {
    BUFFERS.with_borrow_mut(|b| {
        b.text.clear();
        b.text.resize(len, 0);
        b.text.as_mut_ptr()
    })
}

/// A buffer of `len` bytes for the encoded input; its address.
#[no_mangle]
pub extern "C" fn zom_input(len: usize) -> *mut u8 {
    BUFFERS.with_borrow_mut(|b| {
        b.input = Vec::new();
        b.input.resize(len, 0);
        b.input.as_mut_ptr()
    })
}

/// Decodes the input as the text says, producing at most `max` bytes: 0 when it decoded, 1
/// when it failed (the output holds the message, UTF-8).
#[no_mangle]
pub extern "C" fn zom_decode(max: usize) -> u32 {
    BUFFERS.with_borrow_mut(|b| {
        let text = std::mem::take(&mut b.text);
        let text = std::str::from_utf8(&text).unwrap_or_default();
        let (codec, variant) = text.split_once(' ').unwrap_or((text, ""));
        let result = crate::decode(codec, variant, &b.input, max);
        b.input = Vec::new();
        match result {
            Ok(out) => {
                b.output = out;
                0
            }
            Err(message) => {
                b.output = message.into_bytes();
                1
            }
        }
    })
}

/// The address of the last result.
#[no_mangle]
pub extern "C" fn zom_output() -> *const u8 {
    BUFFERS.with_borrow(|b| b.output.as_ptr())
}

/// The length of the last result, in bytes.
#[no_mangle]
pub extern "C" fn zom_output_len() -> usize {
    BUFFERS.with_borrow(|b| b.output.len())
}
