//! The codecs the caller implements in JS (ts/shared/codecs.ts `registerCodec`): a read applies an
//! array's registered codecs to each chunk's stored bytes with the read's `decodeExternal`
//! function (see `crate::codec::ExternalStep`).

use super::store::{absolute, bytes_of, call, check_aborted};
use crate::codec::ExternalStep;
use crate::error::{ErrorCode, Result, ZomError};
use crate::hierarchy::ExternalCodecs;
use futures_util::future::LocalBoxFuture;
use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::JsValue;

/// A read's `decodeExternal` function, `(steps, bytes, key) => Uint8Array | Promise`, with
/// the read's AbortSignal.
pub(super) struct JsExternalCodecs {
    apply: Function,
    signal: JsValue,
}

impl JsExternalCodecs {
    /// The codecs `apply` applies, for a read aborted by `signal` (an AbortSignal or undefined).
    pub(super) fn new(apply: Function, signal: JsValue) -> JsExternalCodecs {
        JsExternalCodecs { apply, signal }
    }

    async fn run(&self, key: &str, steps: &[ExternalStep], bytes: Vec<u8>) -> Result<Vec<u8>> {
        check_aborted(&self.signal, key)?;
        let list = Array::new();
        for step in steps {
            // `RawCodecStep` (src/wasm/boundary.rs `CODEC_STEP`): `{name, configuration}`.
            const STEP: [&str; 2] = super::boundary::names(&super::boundary::CODEC_STEP);
            let [name, configuration] = STEP;
            let item = Object::new();
            let _ = Reflect::set(&item, &name.into(), &JsValue::from_str(&step.name));
            let config = serde_json::Value::Object(step.configuration.clone());
            let _ = Reflect::set(
                &item,
                &configuration.into(),
                &super::convert::to_js(&config),
            );
            list.push(&item);
        }
        let args = Array::of3(
            &list,
            &Uint8Array::from(bytes.as_slice()),
            &JsValue::from_str(&absolute(key)),
        );
        let what = "registered codec";
        let value = call(&self.apply, &JsValue::UNDEFINED, &args, what, key).await?;
        bytes_of(&value, what, key, None)?.ok_or_else(|| {
            ZomError::new(ErrorCode::CodecError, "a registered codec gave no bytes").at_key(key)
        })
    }
}

impl ExternalCodecs for JsExternalCodecs {
    fn apply<'a>(
        &'a self,
        key: &'a str,
        steps: &'a [ExternalStep],
        bytes: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>>> {
        Box::pin(self.run(key, steps, bytes))
    }
}
