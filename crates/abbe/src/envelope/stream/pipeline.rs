//! The threaded pipeline behind [`super::encrypt`] and [`super::decrypt`]:
//! a reader hands batches of chunks to worker threads, which seal or open
//! them in place, and the writer emits them in order, with a bounded number
//! of chunks in flight. The format (nonces, keys, chunking) is the parent
//! module's; the output is byte-for-byte that of one thread.

use super::*;
use std::collections::VecDeque;
use std::thread;

/// Chunks per batch handed to a worker thread.
const BATCH_CHUNKS: usize = 4;

/// Upper bound on the number of chunks held in memory by the pipeline.
const MAX_CHUNKS_IN_FLIGHT: usize = 16;

/// Reads until `buf` is full or the input ends; returns the bytes read.
/// Retries on `Interrupted`, so short reads (pipes, sockets) are handled.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n.min(buf.len() - filled),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A batch of consecutive chunks. Chunk `i` occupies
/// `buf[i * ENCRYPTED_CHUNK_SIZE..]`: the plaintext (encryption) or the
/// ciphertext (decryption), in place.
struct Batch {
    buf: Vec<u8>,
    /// Counter of the first chunk.
    first_counter: u64,
    /// Number of chunks (at least 1).
    chunks: usize,
    /// Input length of the batch's last chunk; all others are full.
    tail_len: usize,
    /// Whether the batch's last chunk is the payload's last chunk.
    is_final: bool,
    /// Result of processing: number of chunks processed successfully and the
    /// error that stopped processing, if any.
    done: usize,
    error: Option<StreamError>,
}

impl Drop for Batch {
    fn drop(&mut self) {
        // Buffers hold plaintext.
        self.buf.zeroize();
    }
}

impl Batch {
    fn new() -> Batch {
        Batch {
            buf: vec![0u8; BATCH_CHUNKS * ENCRYPTED_CHUNK_SIZE + 1],
            first_counter: 0,
            chunks: 0,
            tail_len: 0,
            is_final: false,
            done: 0,
            error: None,
        }
    }

    fn input_len(&self, dir: Direction, i: usize) -> usize {
        if i + 1 == self.chunks {
            self.tail_len
        } else {
            dir.input_chunk_len()
        }
    }

    /// Seals or opens every chunk of the batch in place.
    fn process(&mut self, dir: Direction, cipher: &ChunkCipher, aad: &[u8; 32]) {
        self.done = 0;
        self.error = None;
        for i in 0..self.chunks {
            let off = i * ENCRYPTED_CHUNK_SIZE;
            let len = self.input_len(dir, i);
            let last = self.is_final && i + 1 == self.chunks;
            // `first_counter + i` was checked for overflow when reading.
            let counter = self.first_counter + i as u64;
            match dir {
                Direction::Encrypt => {
                    seal_chunk(
                        cipher,
                        aad,
                        counter,
                        last,
                        &mut self.buf[off..off + len + TAG_SIZE],
                    );
                }
                Direction::Decrypt => {
                    if let Err(e) =
                        open_chunk(cipher, aad, counter, last, &mut self.buf[off..off + len])
                    {
                        self.error = Some(e);
                        return;
                    }
                }
            }
            self.done = i + 1;
        }
    }

    /// Writes the output of the successfully processed chunks; returns the
    /// number of plaintext bytes they hold.
    fn write_output<W: Write>(&self, dir: Direction, output: &mut W) -> io::Result<u64> {
        let mut plaintext = 0u64;
        match dir {
            Direction::Encrypt => {
                // Sealed chunks are contiguous: full chunks then the tail.
                if self.done > 0 {
                    let tail = self.input_len(dir, self.done - 1);
                    let end = (self.done - 1) * ENCRYPTED_CHUNK_SIZE + tail + TAG_SIZE;
                    output.write_all(&self.buf[..end])?;
                    plaintext = ((self.done - 1) * CHUNK_SIZE + tail) as u64;
                }
            }
            Direction::Decrypt => {
                for i in 0..self.done {
                    let off = i * ENCRYPTED_CHUNK_SIZE;
                    let len = self.input_len(dir, i) - TAG_SIZE;
                    output.write_all(&self.buf[off..off + len])?;
                    plaintext += len as u64;
                }
            }
        }
        Ok(plaintext)
    }
}

/// Splits the input into batches of chunks, looking one byte ahead so that
/// the last chunk is known before it is processed.
struct ChunkReader<R> {
    input: R,
    dir: Direction,
    next_counter: u64,
    /// Byte read ahead past the previous chunk.
    carry: Option<u8>,
    finished: bool,
}

impl<R: Read> ChunkReader<R> {
    /// Fills `batch` with the next chunks. Returns `false` when the input is
    /// exhausted (no batch produced).
    fn fill(&mut self, batch: &mut Batch) -> Result<bool, StreamError> {
        if self.finished {
            return Ok(false);
        }
        let full = self.dir.input_chunk_len();
        batch.first_counter = self.next_counter;
        batch.chunks = 0;
        batch.tail_len = 0;
        batch.is_final = false;
        batch.done = 0;
        batch.error = None;
        while batch.chunks < BATCH_CHUNKS {
            let off = batch.chunks * ENCRYPTED_CHUNK_SIZE;
            // Room for a full chunk plus one look-ahead byte. The look-ahead
            // byte lands in the tag area (encryption) or at the start of the
            // next slot / the spare last byte of the buffer (decryption); it
            // is saved in `carry` and moved to the start of the next chunk.
            let slot = &mut batch.buf[off..off + full + 1];
            let mut have = 0;
            if let Some(b) = self.carry.take() {
                slot[0] = b;
                have = 1;
            }
            let len = have + read_full(&mut self.input, &mut slot[have..])?;
            if len > full {
                // More input follows: this is a full, non-last chunk.
                self.carry = Some(slot[full]);
                batch.chunks += 1;
                batch.tail_len = full;
                self.next_counter = self
                    .next_counter
                    .checked_add(1)
                    .ok_or(StreamError::TooLong)?;
                continue;
            }
            // End of input: this is the last chunk. Thanks to the look-ahead
            // byte it is empty only if the whole input is empty.
            self.finished = true;
            if len == 0 && self.dir == Direction::Decrypt {
                return Err(StreamError::Truncated);
            }
            // For encryption an empty input yields one empty last chunk.
            batch.chunks += 1;
            batch.tail_len = len;
            batch.is_final = true;
            break;
        }
        Ok(batch.chunks > 0)
    }
}

pub(super) fn run<R: Read, W: Write>(
    dir: Direction,
    key: &PayloadKey,
    aad: &[u8; 32],
    input: R,
    mut output: W,
    workers: usize,
) -> Result<u64, StreamError> {
    let cipher = key.cipher();
    let mut reader = ChunkReader {
        input,
        dir,
        next_counter: 0,
        carry: None,
        finished: false,
    };
    let mut total = 0u64;
    let mut first = Batch::new();
    if !reader.fill(&mut first)? {
        // Only reachable for decryption of an empty input, which `fill`
        // reports as truncated; kept for robustness.
        return Err(StreamError::Truncated);
    }
    if workers == 0 || first.is_final {
        // Single-threaded: small inputs never pay for thread start-up.
        let mut batch = first;
        loop {
            batch.process(dir, &cipher, aad);
            total = add_len(total, batch.write_output(dir, &mut output)?)?;
            if let Some(e) = batch.error.take() {
                return Err(e);
            }
            if !reader.fill(&mut batch)? {
                break;
            }
        }
        output.flush()?;
        return Ok(total);
    }
    let total = run_pipelined(dir, &cipher, aad, &mut reader, &mut output, workers, first)?;
    output.flush()?;
    Ok(total)
}

/// Multi-threaded variant: the calling thread reads and writes, `workers`
/// threads seal/open whole batches taken from a shared queue in input order,
/// and the output is written in the same order. When the next batch to write
/// is not ready, the calling thread processes a queued batch itself instead
/// of sleeping: progress never waits for a worker the scheduler has not run
/// yet (on a loaded machine a woken thread can wait a whole scheduler tick,
/// which would set a floor under every small envelope). At
/// most `MAX_CHUNKS_IN_FLIGHT` chunks are buffered.
fn run_pipelined<R: Read, W: Write>(
    dir: Direction,
    cipher: &ChunkCipher,
    aad: &[u8; 32],
    reader: &mut ChunkReader<R>,
    output: &mut W,
    workers: usize,
    first: Batch,
) -> Result<u64, StreamError> {
    let max_batches = (MAX_CHUNKS_IN_FLIGHT / BATCH_CHUNKS).max(2);
    let workers = workers.clamp(1, max_batches);
    let shared = Shared::default();
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| shared.work(dir, cipher, aad));
        }
        let result = pump(
            dir,
            cipher,
            aad,
            reader,
            output,
            first,
            &shared,
            max_batches,
        );
        // Stops the workers once they are idle; the scope joins them. Queued
        // buffers are wiped when dropped.
        shared.close();
        result
    })
}

/// The queue shared by the calling thread and the workers.
#[derive(Default)]
struct Shared {
    state: std::sync::Mutex<Queue>,
    /// Signalled when a batch is queued or the queue closes.
    queued: std::sync::Condvar,
    /// Signalled when a worker finishes a batch or dies.
    finished: std::sync::Condvar,
}

#[derive(Default)]
struct Queue {
    /// Batches to process, by sequence number, in input order.
    todo: VecDeque<(usize, Batch)>,
    /// Processed batches not yet written.
    done: Vec<(usize, Batch)>,
    closed: bool,
    worker_died: bool,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // Nothing panics while holding the lock; a poisoned lock still
        // holds a consistent queue.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn close(&self) {
        let mut q = self.lock();
        q.closed = true;
        q.todo.clear();
        drop(q);
        self.queued.notify_all();
    }

    /// A worker: processes queued batches until the queue closes.
    fn work(&self, dir: Direction, cipher: &ChunkCipher, aad: &[u8; 32]) {
        /// Tells the calling thread when this worker dies with a batch.
        struct Alarm<'a>(&'a Shared);
        impl Drop for Alarm<'_> {
            fn drop(&mut self) {
                if thread::panicking() {
                    self.0.lock().worker_died = true;
                    self.0.finished.notify_all();
                }
            }
        }
        let _alarm = Alarm(self);
        loop {
            let (seq, mut batch) = {
                let mut q = self.lock();
                loop {
                    if let Some(job) = q.todo.pop_front() {
                        break job;
                    }
                    if q.closed {
                        return;
                    }
                    q = self
                        .queued
                        .wait(q)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
            };
            batch.process(dir, cipher, aad);
            self.lock().done.push((seq, batch));
            self.finished.notify_all();
        }
    }

    /// The processed batch `seq`: taken from the finished ones, or processed
    /// here from the queue while it waits, or awaited from the worker that
    /// has it.
    fn take(
        &self,
        seq: usize,
        dir: Direction,
        cipher: &ChunkCipher,
        aad: &[u8; 32],
    ) -> Result<Batch, StreamError> {
        let mut q = self.lock();
        loop {
            if let Some(i) = q.done.iter().position(|(s, _)| *s == seq) {
                return Ok(q.done.swap_remove(i).1);
            }
            if let Some((s, mut batch)) = q.todo.pop_front() {
                drop(q);
                batch.process(dir, cipher, aad);
                if s == seq {
                    return Ok(batch);
                }
                q = self.lock();
                q.done.push((s, batch));
                continue;
            }
            if q.worker_died {
                return Err(StreamError::WorkerFailed);
            }
            q = self
                .finished
                .wait(q)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// Main loop of the pipeline: keeps up to `max_batches` batches in flight and
/// writes the processed batches in input order.
#[allow(clippy::too_many_arguments)]
fn pump<R: Read, W: Write>(
    dir: Direction,
    cipher: &ChunkCipher,
    aad: &[u8; 32],
    reader: &mut ChunkReader<R>,
    output: &mut W,
    first: Batch,
    shared: &Shared,
    max_batches: usize,
) -> Result<u64, StreamError> {
    let mut free: Vec<Batch> = Vec::with_capacity(max_batches);
    let mut allocated = 1;
    let mut in_flight = 0usize;
    let mut next_write = 0usize;
    let mut next_seq = 0usize;
    let mut total = 0u64;
    let mut next = Some(first);
    let mut input_done = false;
    let mut read_error = None;
    loop {
        // Keep the workers fed up to the in-flight limit.
        while in_flight < max_batches && !input_done {
            let batch = match next.take() {
                Some(batch) => batch,
                None => {
                    let mut batch = match free.pop() {
                        Some(batch) => batch,
                        None if allocated < max_batches => {
                            allocated += 1;
                            Batch::new()
                        }
                        None => break,
                    };
                    match reader.fill(&mut batch) {
                        Ok(true) => batch,
                        Ok(false) => {
                            input_done = true;
                            free.push(batch);
                            break;
                        }
                        Err(e) => {
                            // Report it after the batches before it, exactly
                            // as single-threaded processing would.
                            free.push(batch);
                            read_error = Some(e);
                            input_done = true;
                            break;
                        }
                    }
                }
            };
            input_done = batch.is_final;
            shared.lock().todo.push_back((next_seq, batch));
            shared.queued.notify_one();
            in_flight += 1;
            next_seq = next_seq.wrapping_add(1);
        }
        if in_flight == 0 {
            return match read_error {
                Some(e) => Err(e),
                None => Ok(total),
            };
        }
        let mut batch = shared.take(next_write, dir, cipher, aad)?;
        in_flight -= 1;
        next_write = next_write.wrapping_add(1);
        let written = batch.write_output(dir, output);
        let error = batch.error.take();
        free.push(batch);
        total = add_len(total, written?)?;
        if let Some(e) = error {
            return Err(e);
        }
    }
}

fn add_len(total: u64, n: u64) -> Result<u64, StreamError> {
    total.checked_add(n).ok_or(StreamError::TooLong)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_limit() {
        // A chunk after counter u64::MAX is refused instead of wrapping.
        let pt = vec![7u8; CHUNK_SIZE + 1];
        let mut reader = ChunkReader {
            input: &pt[..],
            dir: Direction::Encrypt,
            next_counter: u64::MAX,
            carry: None,
            finished: false,
        };
        let mut batch = Batch::new();
        assert!(matches!(reader.fill(&mut batch), Err(StreamError::TooLong)));
        // The last chunk may use counter u64::MAX itself.
        let mut reader = ChunkReader {
            input: &pt[..CHUNK_SIZE],
            dir: Direction::Encrypt,
            next_counter: u64::MAX,
            carry: None,
            finished: false,
        };
        assert!(reader.fill(&mut batch).unwrap());
        assert!(batch.is_final && batch.chunks == 1 && batch.first_counter == u64::MAX);
    }
}
