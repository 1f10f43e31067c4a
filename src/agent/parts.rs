//! A message's images as an agent gets them: in JSON, OpenAI's content
//! parts, the text first, then each image as a data URL, its base64
//! written as the file is read (an image is never held whole, nor twice);
//! in a transcript or the text of the latest message, a line naming each
//! image and its file's full path (which `ollama run` reads as an image
//! for a model that takes them).

use std::io::{self, Write};
use std::path::Path;

use nanoserde::SerJson;

use crate::store::images;
use crate::store::session::Image;

/// The value of a message's `content` in a JSON request: `content` (a
/// JSON string) as it is when there are no images; else the parts, each
/// image read from `dir` (`images/`), one that is not there (or with no
/// `dir`) named in a text part instead.
pub(crate) fn write_content(
    to: &mut dyn Write,
    content: &[u8],
    images: &[Image],
    dir: Option<&Path>,
) -> io::Result<()> {
    if images.is_empty() {
        return to.write_all(content);
    }
    to.write_all(b"[{\"type\":\"text\",\"text\":")?;
    to.write_all(content)?;
    to.write_all(b"}")?;
    for image in images {
        let file = dir.and_then(|dir| images::path_in(dir, &image.file));
        let opened = file.as_ref().and_then(|path| std::fs::File::open(path).ok());
        match (opened, images::media_type(&image.file)) {
            (Some(mut file), Some(media)) => {
                to.write_all(b",{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:")?;
                to.write_all(media.as_bytes())?;
                to.write_all(b";base64,")?;
                crate::encoding::encode_stream(&mut file, &mut &mut *to)?;
                to.write_all(b"\"}}")?;
            }
            _ => {
                // Not where it should be (removed, or a name hermes does
                // not give); or no store to look in (`sessions compact`).
                let missing = match dir {
                    Some(_) => format!("[image: {}, missing from the store's images/]", image.name),
                    None => format!("[image: {}]", image.name),
                };
                to.write_all(b",{\"type\":\"text\",\"text\":")?;
                to.write_all(missing.serialize_json().as_bytes())?;
                to.write_all(b"}")?;
            }
        }
    }
    to.write_all(b"]")
}

/// The lines that name a message's images in a transcript or a text
/// input: `[image: photo.png, /home/ana/.hermes/images/9f86….png]`.
pub(crate) fn write_lines(to: &mut dyn Write, images: &[Image], dir: Option<&Path>) -> io::Result<()> {
    for image in images {
        let path = dir.and_then(|dir| images::path_in(dir, &image.file));
        let place = path.map_or_else(|| image.file.clone(), |p| p.display().to_string());
        writeln!(to, "[image: {}, {place}]", image.name)?;
    }
    Ok(())
}
