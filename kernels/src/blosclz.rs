//! The BloscLZ decompressor (a FastLZ variant), bounds-checked at every step.

/// Decompresses one BloscLZ stream into exactly `out`. Returns the number of bytes written,
/// or `None` when the stream is malformed or does not fit.
pub fn blosclz_decompress(input: &[u8], out: &mut [u8]) -> Option<usize> {
    const MAX_DISTANCE: usize = 8191;
    let mut ip = 0usize;
    let mut op = 0usize;
    let mut ctrl = usize::from(*input.get(ip)? & 31);
    ip += 1;
    loop {
        if ctrl >= 32 {
            // A match: copy `len` bytes from `distance` bytes back.
            let mut len = (ctrl >> 5) - 1;
            let ofs = (ctrl & 31) << 8;
            if len == 7 - 1 {
                loop {
                    let code = *input.get(ip)?;
                    ip += 1;
                    len = len.checked_add(usize::from(code))?;
                    if code != 255 {
                        break;
                    }
                }
            }
            let code = usize::from(*input.get(ip)?);
            ip += 1;
            let mut distance = ofs + code;
            if code == 255 && ofs == (31 << 8) {
                // A far match: the distance follows in two bytes, big-endian.
                let hi = usize::from(*input.get(ip)?);
                let lo = usize::from(*input.get(ip + 1)?);
                ip += 2;
                distance = ((hi << 8) | lo) + MAX_DISTANCE;
            }
            let len = len + 3;
            // The copy starts one byte further back than the distance says.
            let start = op.checked_sub(distance + 1)?;
            let end = op.checked_add(len)?;
            if end > out.len() {
                return None;
            }
            if start + len <= op {
                out.copy_within(start..start + len, op);
            } else {
                // Overlapping: byte by byte, so that runs repeat.
                for k in 0..len {
                    let b = *out.get(start + k)?;
                    *out.get_mut(op + k)? = b;
                }
            }
            op = end;
            match input.get(ip) {
                Some(&c) => {
                    ctrl = usize::from(c);
                    ip += 1;
                }
                None => break,
            }
        } else {
            // A literal run of ctrl + 1 bytes.
            let run = ctrl + 1;
            let src = input.get(ip..ip.checked_add(run)?)?;
            out.get_mut(op..op.checked_add(run)?)?.copy_from_slice(src);
            ip += run;
            op += run;
            match input.get(ip) {
                Some(&c) => {
                    ctrl = usize::from(c);
                    ip += 1;
                }
                None => break,
            }
        }
    }
    Some(op)
}
