//! Request bodies: bounded reads, and a pushed ciphertext file read up to
//! the end of its head, then passed through chunk by chunk.

use super::*;

/// The largest KEM header the proxy buffers (in a file's head or alone):
/// 16 MiB, far above an outsourcing scheme's header at the default policy
/// work budget (a few MB on BLS48-581). The format allows more
/// ([`envelope::MAX_HEADER_BYTES`], for broadcast baselines the proxy never
/// transforms); this bounds the memory of every request.
pub const MAX_PUSHED_HEADER: usize = 16 << 20;

pub(super) fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("request body larger than the limit of {limit} bytes"),
    )
}

/// The request's `Content-Length`, if declared; 413 when above `limit`.
pub(super) fn declared_len(headers: &HeaderMap, limit: usize) -> ApiResult<Option<u64>> {
    let len = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match len {
        Some(len) if len > limit as u64 => Err(too_large(limit)),
        _ => Ok(len),
    }
}

/// Reads a request body of at most `limit` bytes (413 above).
pub(super) async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> ApiResult<Bytes> {
    declared_len(headers, limit)?;
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let mut src: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(s) = src {
            if s.is::<http_body_util::LengthLimitError>() {
                return too_large(limit);
            }
            src = s.source();
        }
        ApiError::bad(format!("cannot read the request body: {e}"))
    })
}

/// A pushed body after its head phase.
pub(super) enum Pushed {
    /// A ciphertext file (kind 8): its head, the head's length in bytes,
    /// the bytes already read past it, and the rest of the body, unread.
    File {
        head: envelope::Head,
        head_len: usize,
        rest: Bytes,
        body: BodyDataStream,
    },
    /// Anything else (a KEM header object, or a body too short to hold a
    /// head), read whole: at most the cap.
    Whole(Bytes),
}

/// The length of the head of a ciphertext file that starts with `prefix`
/// (a kind-8 preamble) and the length of its KEM header, once the header
/// length is in `prefix`; `None` before.
pub(super) fn file_head_len(prefix: &[u8]) -> Option<(usize, usize)> {
    Some((
        envelope::head_len(prefix)?,
        envelope::header_span(prefix)?.len(),
    ))
}

pub(super) async fn next_chunk(body: &mut BodyDataStream) -> ApiResult<Option<Bytes>> {
    body.next()
        .await
        .transpose()
        .map_err(|e| ApiError::bad(format!("cannot read the request body: {e}")))
}

/// Reads a pushed body: a ciphertext file up to the end of its head
/// (bounded by the head's own limit and by `limit`), anything else whole
/// (at most `limit` and [`MAX_PUSHED_HEADER`]). A bad preamble or
/// an oversized KEM header is refused as soon as its bytes are in, without
/// reading further. So a request holds at most about 16 MiB (and one
/// chunk) in memory, whatever `--max-body` allows a streamed file.
pub(super) async fn read_pushed(
    st: &AppState,
    tk: &PreparedTransformKey,
    body: Body,
    limit: usize,
) -> ApiResult<Pushed> {
    let mut body = body.into_data_stream();
    let mut buf = BytesMut::new();
    let mut eof = false;
    let file = loop {
        // How many bytes the decision (or the file's head) needs.
        let need = if buf.len() < PREAMBLE_LEN {
            PREAMBLE_LEN
        } else {
            let invalid = |e: String| {
                let p = tk.preamble();
                st.metrics.transform(
                    p.scheme.name(),
                    p.curve.name(),
                    "invalid",
                    false,
                    Duration::ZERO,
                );
                ApiError::bad(e)
            };
            let pre = Preamble::parse(&buf)
                .map_err(|e| invalid(format!("not an abbe ciphertext: {e}")))?;
            if pre.kind != ObjectKind::EncryptedFile {
                break false;
            }
            match file_head_len(&buf) {
                None => envelope::SPAN_PREFIX_LEN,
                Some((_, header)) if header > MAX_PUSHED_HEADER => {
                    return Err(invalid(format!(
                        "the file's KEM header is {header} bytes, above the proxy's limit of \
                         {MAX_PUSHED_HEADER} bytes"
                    )));
                }
                Some((n, _)) => n,
            }
        };
        if buf.len() >= need {
            break true;
        }
        if need > limit {
            return Err(too_large(limit));
        }
        match next_chunk(&mut body).await? {
            // Too short to be what it starts as: the whole-object path
            // reports why (not an abbe object, a truncated file).
            None => {
                eof = true;
                break false;
            }
            Some(chunk) => {
                if buf.len() + chunk.len() > limit {
                    return Err(too_large(limit));
                }
                buf.extend_from_slice(&chunk);
            }
        }
    };
    if !file {
        // A KEM header is at most what a file may carry, whatever the cap
        // for streamed files: this is the most a request ever buffers.
        let limit = limit.min(MAX_PUSHED_HEADER);
        if buf.len() > limit {
            return Err(too_large(limit));
        }
        while let Some(chunk) = if eof {
            None
        } else {
            next_chunk(&mut body).await?
        } {
            if buf.len() + chunk.len() > limit {
                return Err(too_large(limit));
            }
            buf.extend_from_slice(&chunk);
        }
        return Ok(Pushed::Whole(buf.freeze()));
    }
    let mut cur: &[u8] = &buf;
    let parsed = envelope::read_head(&mut cur);
    let head_len = buf.len() - cur.len();
    let head = match parsed {
        Ok(h) => h,
        Err(e) => {
            let p = tk.preamble();
            let mode = mode_of(&buf);
            st.metrics
                .transform(p.scheme.name(), p.curve.name(), mode, false, Duration::ZERO);
            return Err(ApiError::bad(format!("corrupt ciphertext: {e}")));
        }
    };
    let rest = buf.freeze().split_off(head_len);
    Ok(Pushed::File {
        head,
        head_len,
        rest,
        body,
    })
}

/// The rest of a pushed file's body, passed through unchanged after the new
/// head: counted against the cap, each wait for the client's next bytes
/// bounded by the idle timeout. How it ended goes to the metrics once (on
/// drop, so an answer abandoned by its client counts too).
pub(super) struct PassThrough {
    pub(super) body: BodyDataStream,
    /// Bytes read with the head, not yet passed on.
    pub(super) pending: Option<Bytes>,
    /// Request bytes so far (head included), against `limit`.
    pub(super) received: u64,
    pub(super) limit: u64,
    pub(super) idle: Duration,
    pub(super) metrics: Arc<Metrics>,
    pub(super) outcome: Option<&'static str>,
}

impl PassThrough {
    fn fail(
        mut self,
        outcome: &'static str,
        kind: std::io::ErrorKind,
        msg: String,
    ) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        self.outcome = Some(outcome);
        Some((Err(std::io::Error::new(kind, msg)), self))
    }

    pub(super) async fn step(mut self) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        if self.outcome.is_some() {
            return None;
        }
        loop {
            let chunk = match self.pending.take() {
                Some(b) => b,
                None => match tokio::time::timeout(self.idle, self.body.next()).await {
                    Err(_) => {
                        let msg = format!(
                            "no request bytes for {} s: the answer is cut",
                            self.idle.as_secs_f64()
                        );
                        return self.fail("idle_timeout", std::io::ErrorKind::TimedOut, msg);
                    }
                    Ok(None) => {
                        self.outcome = Some("ok");
                        return None;
                    }
                    Ok(Some(Err(e))) => {
                        let msg = format!("the request body broke off: {e}");
                        return self.fail("client_error", std::io::ErrorKind::Other, msg);
                    }
                    Ok(Some(Ok(b))) => b,
                },
            };
            if chunk.is_empty() {
                continue;
            }
            self.received = self.received.saturating_add(chunk.len() as u64);
            if self.received > self.limit {
                let msg = format!(
                    "request body larger than the limit of {} bytes: the answer is cut",
                    self.limit
                );
                return self.fail("too_large", std::io::ErrorKind::InvalidData, msg);
            }
            self.metrics.streamed(chunk.len() as u64);
            return Some((Ok(chunk), self));
        }
    }
}

impl Drop for PassThrough {
    fn drop(&mut self) {
        self.metrics
            .stream_ended(self.outcome.unwrap_or("abandoned"));
    }
}

pub(super) fn file_response(body: Body, len: Option<u64>) -> Response {
    let mut resp = (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            ),
            (
                header::HeaderName::from_static("x-abbe-object"),
                HeaderValue::from_static("transformed-ciphertext"),
            ),
        ],
        body,
    )
        .into_response();
    if let Some(len) = len {
        resp.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    resp
}
