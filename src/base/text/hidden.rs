//! Colours that hide text: the foreground and background an agent's SGR
//! sequences set, and the pairs of them that leave text invisible (the
//! same or nearly the same colour, by 8-colour, bright, 256-colour or RGB
//! number), which the gate does not let through.

/// A colour as an SGR sequence names it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Colour {
    /// One of the 256 of the terminal's palette (the first 16 its theme's).
    Palette(u8),
    Rgb(u8, u8, u8),
}

/// The colours the sequences let through so far have set; None is the
/// terminal's own, which hermes cannot know (so it judges no pair with it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Colours {
    fg: Option<Colour>,
    bg: Option<Colour>,
}

impl Colours {
    /// Take in an SGR sequence's parameters (`params`, between `ESC [` and
    /// `m`): true when it may pass; false, nothing taken in, when the text
    /// after it would be drawn in its background's colour.
    pub(crate) fn admit(&mut self, params: &[u8]) -> bool {
        let mut next = *self;
        next.apply(params);
        if let (Some(fg), Some(bg)) = (next.fg, next.bg)
            && alike(fg, bg)
        {
            return false;
        }
        *self = next;
        true
    }

    fn apply(&mut self, params: &[u8]) {
        let mut fields = params.split(|&b| b == b';');
        while let Some(field) = fields.next() {
            let mut parts = field.split(|&b| b == b':');
            match number(parts.next().unwrap_or_default()) {
                Some(0) => *self = Colours::default(),
                Some(n @ 30..=37) => self.fg = Some(Colour::Palette(n as u8 - 30)),
                Some(n @ 90..=97) => self.fg = Some(Colour::Palette(n as u8 - 90 + 8)),
                Some(39) => self.fg = None,
                Some(n @ 40..=47) => self.bg = Some(Colour::Palette(n as u8 - 40)),
                Some(n @ 100..=107) => self.bg = Some(Colour::Palette(n as u8 - 100 + 8)),
                Some(49) => self.bg = None,
                Some(which @ (38 | 48)) => {
                    // `38:5:N`, `38:2:R:G:B`, `38:2:SPACE:R:G:B`; or the
                    // same with `;`, its numbers the fields that follow.
                    let args: Vec<Option<u32>> = if field.contains(&b':') {
                        parts.map(number).collect()
                    } else {
                        match fields.next().and_then(number) {
                            Some(5) => vec![Some(5), fields.next().and_then(number)],
                            Some(2) => {
                                [Some(2)].into_iter().chain(fields.by_ref().take(3).map(number)).collect()
                            }
                            _ => Vec::new(),
                        }
                    };
                    let colour = colour_of(&args);
                    if which == 38 { self.fg = colour.or(self.fg) } else { self.bg = colour.or(self.bg) }
                }
                _ => {}
            }
        }
    }
}

/// An SGR parameter's number (an empty one is 0); None when it is none.
fn number(field: &[u8]) -> Option<u32> {
    field.iter().try_fold(0u32, |n, &d| {
        if !d.is_ascii_digit() {
            return None;
        }
        n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

/// The colour that `5;N` or `2;R;G;B` (the arguments of 38 or 48) name.
fn colour_of(args: &[Option<u32>]) -> Option<Colour> {
    let byte = |n: Option<u32>| n.and_then(|n| u8::try_from(n).ok());
    match args {
        [Some(5), n] => byte(*n).map(Colour::Palette),
        [Some(2), .., r, g, b] if args.len() <= 5 => Some(Colour::Rgb(byte(*r)?, byte(*g)?, byte(*b)?)),
        _ => None,
    }
}

/// Whether text in `fg` on `bg` cannot be read: the same colour, or two
/// whose red, green and blue (xterm's palette for numbered ones) lie
/// close together.
fn alike(fg: Colour, bg: Colour) -> bool {
    if fg == bg {
        return true;
    }
    let ([r1, g1, b1], [r2, g2, b2]) = (rgb(fg), rgb(bg));
    let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
    d(r1, r2) + d(g1, g2) + d(b1, b2) < NEAR * NEAR
}

/// How far apart (in RGB) two colours must be for text in one on the
/// other to be read: white on bright white (45 apart) is not.
const NEAR: i32 = 64;

fn rgb(colour: Colour) -> [u8; 3] {
    const SIXTEEN: [[u8; 3]; 16] = [
        [0, 0, 0],
        [205, 0, 0],
        [0, 205, 0],
        [205, 205, 0],
        [0, 0, 238],
        [205, 0, 205],
        [0, 205, 205],
        [229, 229, 229],
        [127, 127, 127],
        [255, 0, 0],
        [0, 255, 0],
        [255, 255, 0],
        [92, 92, 255],
        [255, 0, 255],
        [0, 255, 255],
        [255, 255, 255],
    ];
    match colour {
        Colour::Rgb(r, g, b) => [r, g, b],
        Colour::Palette(n @ 0..=15) => SIXTEEN[n as usize],
        Colour::Palette(n @ 16..=231) => {
            let level = |i: u8| if i == 0 { 0 } else { 55 + 40 * i };
            let n = n - 16;
            [level(n / 36), level(n / 6 % 6), level(n % 6)]
        }
        Colour::Palette(n) => [8 + 10 * (n - 232); 3],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes(sequences: &[&str]) -> Vec<bool> {
        let mut colours = Colours::default();
        sequences.iter().map(|s| colours.admit(s.as_bytes())).collect()
    }

    #[test]
    fn pairs_that_hide_text_do_not_pass() {
        for hidden in [
            "30;40",
            "37;47",
            "97;107",
            "37;107",
            "92;42",
            "38;5;16;48;5;0",
            "38;5;232;48;5;16",
            "38;2;0;0;0;48;2;0;0;0",
            "38;2;10;10;10;48;2;0;0;0",
            "38:2::255:255:255;48:5:15",
            "38:2:0:0:0;40",
            "1;31;41",
        ] {
            assert_eq!(passes(&[hidden]), [false], "{hidden}");
        }
        // Set apart: the second one would make the pair.
        assert_eq!(passes(&["30", "40"]), [true, false]);
        assert_eq!(passes(&["48;5;21", "38;2;0;0;255"]), [true, false]);
        // Refused, it changed nothing: what follows is judged as before it.
        assert_eq!(passes(&["31", "41", "42", "0", "41"]), [true, false, true, true, true]);
    }

    #[test]
    fn readable_pairs_and_single_colours_pass() {
        for shown in [
            "",
            "0",
            "1;31",
            "30",
            "47",
            "30;47",
            "90;40",
            "34;40",
            "33;47",
            "94;44",
            "38;5;236;48;5;16",
            "38;2;255;0;0;48;2;118;118;118",
            "38;5;300;48;5;0",
            "39;49",
        ] {
            assert_eq!(passes(&[shown]), [true], "{shown}");
        }
        // The terminal's own colours are not judged.
        assert_eq!(passes(&["30;40", "39", "40", "49;30"]), [false, true, true, true]);
    }

    #[test]
    fn the_gate_drops_the_sequence_and_keeps_the_text() {
        let mut f = crate::text::TerminalFilter::new(true);
        let shown = f.push(b"a\x1b[30;40mb\x1b[31mc\x1b[4") + &f.push(b"1md\x1b[0m") + &f.finish();
        assert_eq!(shown, "ab\x1b[31mcd\x1b[0m");
    }
}
