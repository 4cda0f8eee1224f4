//! The transformation of a head or a whole object on the blocking pool,
//! timed and counted in the metrics.

use super::*;

/// The head of a transformed file for `head`: the transformed KEM header
/// in place of the original, the original's digest, the same salt.
pub(super) fn transform_head(
    tk: &PreparedTransformKey,
    head: &envelope::Head,
) -> Result<Vec<u8>, ApiError> {
    let t = tk.transform(&head.header)?;
    let mut out = Vec::with_capacity(t.len() + 64);
    envelope::write_transformed(head, &t, std::io::empty(), &mut out)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(out)
}

/// Transforms a pushed file's head on the blocking pool (a worker permit,
/// metrics as for any transformation).
pub(super) async fn run_head_transform(
    st: &AppState,
    permit: OwnedSemaphorePermit,
    tk: Arc<PreparedTransformKey>,
    head: envelope::Head,
) -> ApiResult<Vec<u8>> {
    let (scheme, curve) = (tk.preamble().scheme.name(), tk.preamble().curve.name());
    let metrics = st.metrics.clone();
    blocking(permit, move || {
        metrics.in_flight(1);
        let t0 = Instant::now();
        let r = transform_head(&tk, &head);
        let took = t0.elapsed();
        metrics.in_flight(-1);
        let mode = header_mode(Preamble::parse(&head.header).ok().map(|p| p.kind));
        metrics.transform(scheme, curve, mode, r.is_ok(), took);
        r
    })
    .await?
}

/// What a transformation of a whole object produced.
pub(super) enum Output {
    /// A transformed file: its new head, then the original payload.
    File { head: Vec<u8>, payload: Bytes },
    /// A transformed KEM header object.
    Header(Vec<u8>),
}

/// A ciphertext file or a KEM header object → its transformation.
pub(super) fn transform_input(
    tk: &PreparedTransformKey,
    input: &Bytes,
) -> Result<Output, ApiError> {
    let pre = Preamble::parse(input)
        .map_err(|e| ApiError::bad(format!("not an abbe ciphertext: {e}")))?;
    match pre.kind {
        ObjectKind::EncryptedFile => {
            let mut cur: &[u8] = input;
            let head = envelope::read_head(&mut cur)
                .map_err(|e| ApiError::bad(format!("corrupt ciphertext: {e}")))?;
            let consumed = input.len() - cur.len();
            Ok(Output::File {
                head: transform_head(tk, &head)?,
                payload: input.slice(consumed..),
            })
        }
        ObjectKind::TransformedFile
        | ObjectKind::TransformedKemHeader
        | ObjectKind::RccaTransformedKemHeader => {
            Err(ApiError::bad("this ciphertext is already transformed"))
        }
        _ => Ok(Output::Header(tk.transform(input)?)),
    }
}

/// Transforms a whole object in memory (a KEM header; a file fetched by
/// transform-url).
pub(super) async fn run_transform(
    st: &AppState,
    permit: OwnedSemaphorePermit,
    tk: Arc<PreparedTransformKey>,
    input: Bytes,
) -> ApiResult<Response> {
    let (scheme, curve) = (tk.preamble().scheme.name(), tk.preamble().curve.name());
    let metrics = st.metrics.clone();
    let out = blocking(permit, move || {
        metrics.in_flight(1);
        let t0 = Instant::now();
        let r = transform_input(&tk, &input);
        let took = t0.elapsed();
        metrics.in_flight(-1);
        let mode = mode_of(&input);
        metrics.transform(scheme, curve, mode, r.is_ok(), took);
        r
    })
    .await??;
    Ok(match out {
        Output::Header(h) => (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/octet-stream"),
                ),
                (
                    header::HeaderName::from_static("x-abbe-object"),
                    HeaderValue::from_static("transformed-header"),
                ),
            ],
            h,
        )
            .into_response(),
        Output::File { head, payload } => {
            let len = (head.len() + payload.len()) as u64;
            let chunks: [Result<Bytes, std::io::Error>; 2] = [Ok(Bytes::from(head)), Ok(payload)];
            file_response(
                Body::from_stream(futures_util::stream::iter(chunks)),
                Some(len),
            )
        }
    })
}

/// "cpa", "rcca" or "invalid", for the metrics, from a KEM header's kind.
pub(super) fn header_mode(kind: Option<ObjectKind>) -> &'static str {
    match kind {
        Some(ObjectKind::KemHeader) => "cpa",
        Some(ObjectKind::RccaKemHeader) => "rcca",
        _ => "invalid",
    }
}

/// "cpa", "rcca" or "invalid", for the metrics, from an object's bytes.
pub(super) fn mode_of(input: &[u8]) -> &'static str {
    let header_kind = match Preamble::parse(input) {
        Ok(p) if p.kind == ObjectKind::EncryptedFile => envelope::header_span(input)
            .and_then(|span| input.get(span.start..))
            .and_then(|h| Preamble::parse(h).ok())
            .map(|p| p.kind),
        Ok(p) => Some(p.kind),
        Err(_) => None,
    };
    header_mode(header_kind)
}
