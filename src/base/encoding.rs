//! Base64 as RFC 4648 has it (the standard alphabet, `=` padding): the
//! clipboard's OSC 52 sequence, and an image as a data URL in a request,
//! written as it is read.

use std::io::{self, Read, Write};

const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    push(bytes, &mut out);
    String::from_utf8(out).expect("base64 digits are ASCII")
}

/// The base64 of `bytes` added to `out`.
fn push(bytes: &[u8], out: &mut Vec<u8>) {
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { DIGITS[(n >> (18 - 6 * i) & 63) as usize] } else { b'=' });
        }
    }
}

/// All of `from` in base64 to `to`, a piece at a time: what is read is
/// never held whole (an image of megabytes costs a piece's worth). How
/// many bytes were read.
pub(crate) fn encode_stream(from: &mut impl Read, to: &mut impl Write) -> io::Result<u64> {
    const PIECE: usize = 48 << 10; // a multiple of 3: no padding but at the end
    let (mut piece, mut digits) = (vec![0u8; PIECE], Vec::with_capacity(PIECE / 3 * 4));
    let mut total = 0u64;
    loop {
        // Filled up to a whole piece, so that only the last one pads.
        let mut filled = 0;
        while filled < PIECE {
            match from.read(&mut piece[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        digits.clear();
        push(&piece[..filled], &mut digits);
        to.write_all(&digits)?;
        total += filled as u64;
        if filled < PIECE {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648_has_it() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
        }
        assert_eq!(encode("é\n".as_bytes()), "w6kK");
        assert_eq!(encode(&[0xfb, 0xff, 0xbf]), "+/+/");
    }

    #[test]
    fn a_stream_comes_out_as_the_whole_would() {
        // Across pieces, and from a reader that gives a few bytes at a time.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(1000);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        for len in [0, 1, 2, 3, (48 << 10) - 1, 48 << 10, (48 << 10) + 1, 200_001] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let mut out = Vec::new();
            assert_eq!(encode_stream(&mut Trickle(&bytes), &mut out).unwrap(), len as u64);
            assert_eq!(String::from_utf8(out).unwrap(), encode(&bytes), "{len}");
        }
    }
}
