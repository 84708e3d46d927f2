//! The reader's way to the codec parts (ARCHITECTURE.md, "Parts"; `crate::codec::lazy`): the
//! TypeScript wrapper hands each instance, once, the object that calls the parts loaded on its
//! thread (ts/parts/codec-calls.ts), and the codecs whose decoders live in a part call it
//! synchronously, in the middle of a chunk's decoding.

use js_sys::Error;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// ts/parts/codec-calls.ts's `PartCaller`: `decode(part, codec, variant, bytes, max)` gives the
    /// decoded bytes, or throws an `Error` saying why (a part not loaded, bad data).
    pub type PartCaller;

    #[wasm_bindgen(method, catch)]
    fn decode(
        this: &PartCaller,
        part: &str,
        codec: &str,
        variant: &str,
        input: &[u8],
        max: f64,
    ) -> Result<Vec<u8>, JsValue>;
}

thread_local! {
    static CALLER: RefCell<Option<PartCaller>> = const { RefCell::new(None) };
}

/// Sets the object that calls this thread's codec parts (the TypeScript wrapper, once per
/// instance, before any read).
#[wasm_bindgen(js_name = setPartCaller)]
pub fn set_part_caller(caller: PartCaller) {
    CALLER.with_borrow_mut(|c| *c = Some(caller));
    crate::codec::lazy::set_host(call);
}

/// Calls a part through the registered caller; a thrown value becomes its message.
fn call(
    part: &str,
    codec: &str,
    variant: &str,
    input: &[u8],
    max: usize,
) -> Result<Vec<u8>, String> {
    CALLER.with_borrow(|caller| {
        let caller = caller
            .as_ref()
            .ok_or_else(|| format!("zom's part \"{part}\" cannot be called here"))?;
        caller
            .decode(part, codec, variant, input, max as f64)
            .map_err(|thrown| match thrown.dyn_ref::<Error>() {
                Some(e) => String::from(e.message()),
                None => thrown
                    .as_string()
                    .unwrap_or_else(|| "the part failed".into()),
            })
    })
}
