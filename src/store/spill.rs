//! What an import keeps for the store's caches (each session's index
//! line, each one's catalog entry), held on disk rather than in memory:
//! records are gathered up to `RUN_BYTES`, each run sorted and written to
//! a temporary file in the store's home (unlinked as soon as it is made,
//! so nothing is left behind however the import ends), then read back
//! merged in byte order, a block of each run at a time. A million
//! sessions' records cost the run being gathered and a block a run, not a
//! million records.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::fsio;

/// Bytes of records gathered before they are sorted and written out.
const RUN_BYTES: usize = 4 << 20;
/// Bytes of a run read back at a time (more for a longer record).
const BLOCK: usize = 32 << 10;

/// Records (byte strings) to be read back in byte order.
pub(crate) struct Spill {
    dir: PathBuf,
    /// The temporary file, once a run was written (already unlinked).
    file: Option<File>,
    /// Where each run written lies in it.
    runs: Vec<(u64, u64)>,
    written: u64,
    /// The run being gathered: its records end to end, and where each is.
    run: Vec<u8>,
    places: Vec<(u32, u32)>,
    count: u64,
    /// Writing failed: what was pushed cannot be read back whole.
    failed: bool,
}

impl Spill {
    /// A spill whose file, if it needs one, is made in `dir`.
    pub(crate) fn new(dir: &Path) -> Spill {
        Spill {
            dir: dir.to_path_buf(),
            file: None,
            runs: Vec::new(),
            written: 0,
            run: Vec::new(),
            places: Vec::new(),
            count: 0,
            failed: false,
        }
    }

    /// How many records were pushed.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    pub(crate) fn push(&mut self, record: &[u8]) {
        if self.failed {
            return;
        }
        self.places.push((self.run.len() as u32, record.len() as u32));
        self.run.extend_from_slice(record);
        self.count += 1;
        if self.run.len() >= RUN_BYTES {
            self.failed = self.write_run().is_err();
        }
    }

    /// Sort the run gathered and append it to the file, each record
    /// after its length (4 bytes, little-endian).
    fn write_run(&mut self) -> io::Result<()> {
        if self.places.is_empty() {
            return Ok(());
        }
        let run = &self.run;
        let of = |&(start, len): &(u32, u32)| &run[start as usize..(start + len) as usize];
        crate::order::sort_by(&mut self.places, |a, b| of(a).cmp(of(b)));
        if self.file.is_none() {
            self.file = Some(self.create()?);
        }
        let file = self.file.as_ref().expect("made above");
        let mut out = BufWriter::with_capacity(BLOCK, file);
        let start = self.written;
        for place in &self.places {
            let record = of(place);
            out.write_all(&(record.len() as u32).to_le_bytes())?;
            out.write_all(record)?;
            self.written += 4 + record.len() as u64;
        }
        out.flush()?;
        self.runs.push((start, self.written - start));
        self.run.clear();
        self.places.clear();
        Ok(())
    }

    /// The temporary file, made private and removed from its directory at
    /// once: only this process holds it.
    fn create(&self) -> io::Result<File> {
        loop {
            let path = self.dir.join(format!(".spill.{}{}", fsio::random_hex(12), fsio::TEMP_SUFFIX));
            match fsio::create_new_private(&path) {
                Ok(_) => {
                    let file = std::fs::OpenOptions::new().read(true).write(true).open(&path);
                    let _ = std::fs::remove_file(&path);
                    return file;
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Every record pushed, in byte order (as often as asked); None when
    /// they cannot all be read back.
    pub(crate) fn merged(&mut self) -> Option<Merged<'_>> {
        if !self.failed {
            self.failed = self.write_run().is_err();
        }
        if self.failed {
            return None;
        }
        let runs = self.runs.iter().map(|&(start, len)| Run::new(start, start + len)).collect();
        Some(Merged { file: self.file.as_ref(), runs, current: Vec::new(), broken: false })
    }
}

/// The records of a spill read back in order (see `Spill::merged`).
pub(crate) struct Merged<'a> {
    file: Option<&'a File>,
    runs: Vec<Run>,
    current: Vec<u8>,
    broken: bool,
}

impl Merged<'_> {
    /// The next record; None after the last (or when reading failed:
    /// `broken` says which).
    pub(crate) fn next(&mut self) -> Option<&[u8]> {
        let file = self.file?;
        let mut least: Option<usize> = None;
        for i in 0..self.runs.len() {
            if self.runs[i].head.is_none() && !self.runs[i].done {
                self.broken |= self.runs[i].load(file).is_err();
            }
            let Some(head) = self.runs[i].record() else { continue };
            if least.is_none_or(|l| head < self.runs[l].record().expect("a record")) {
                least = Some(i);
            }
        }
        let run = &mut self.runs[least?];
        self.current.clear();
        self.current.extend_from_slice(run.record().expect("a record"));
        run.head = None;
        Some(&self.current)
    }

    /// Whether reading failed: what was read is not every record.
    pub(crate) fn broken(&self) -> bool {
        self.broken
    }
}

/// One run being read back: a block of it at a time.
struct Run {
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
    /// Where the record at its head lies in `buf`, once loaded.
    head: Option<(usize, usize)>,
    done: bool,
}

impl Run {
    fn new(pos: u64, end: u64) -> Run {
        Run { pos, end, buf: Vec::new(), at: 0, head: None, done: false }
    }

    fn record(&self) -> Option<&[u8]> {
        self.head.map(|(from, to)| &self.buf[from..to])
    }

    /// Read the next record to the head; at the end, `done`.
    fn load(&mut self, file: &File) -> io::Result<()> {
        if let Some((_, to)) = self.head.take() {
            self.at = to;
        }
        if !self.fill(file, 4)? {
            self.done = true;
            return Ok(());
        }
        let len = u32::from_le_bytes(self.buf[self.at..self.at + 4].try_into().expect("4 bytes")) as usize;
        if !self.fill(file, 4 + len)? {
            return Err(io::Error::other("a spilled record cut short"));
        }
        self.head = Some((self.at + 4, self.at + 4 + len));
        self.at += 4 + len;
        Ok(())
    }

    /// Have `need` bytes from `at` in the buffer; false at the run's end.
    fn fill(&mut self, file: &File, need: usize) -> io::Result<bool> {
        if self.buf.len() - self.at >= need {
            return Ok(true);
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let want = (need - self.buf.len()).max(BLOCK).min((self.end - self.pos) as usize);
        if self.buf.len() + want < need {
            return Ok(false);
        }
        let have = self.buf.len();
        self.buf.resize(have + want, 0);
        file.read_exact_at(&mut self.buf[have..], self.pos)?;
        self.pos += want as u64;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_every_record_in_order_across_runs_and_blocks() {
        let dir = std::env::temp_dir().join(format!("hermes-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut spill = Spill::new(&dir);
        let mut seed = 1u64;
        let mut expected = Vec::new();
        for i in 0..40_000u64 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Short records, and now and then one longer than a block.
            let len = if i % 5000 == 0 { BLOCK + 17 } else { (seed >> 58) as usize * 40 };
            let record: Vec<u8> = (0..len).map(|j| (seed >> (j % 50)) as u8).collect();
            spill.push(&record);
            expected.push(record);
        }
        expected.sort();
        for _ in 0..2 {
            let mut merged = spill.merged().expect("written");
            let mut got = Vec::new();
            while let Some(r) = merged.next() {
                got.push(r.to_vec());
            }
            assert!(!merged.broken());
            assert!(got == expected, "{} records back of {}", got.len(), expected.len());
        }
        assert_eq!(spill.count(), 40_000);
        assert!(spill.runs.len() > 4, "{} runs", spill.runs.len());
        // Nothing is left in the directory.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
