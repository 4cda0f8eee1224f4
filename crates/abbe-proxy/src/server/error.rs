//! The API's errors: JSON `{"error": ...}` with the status code, from
//! each source of failure.

use super::*;

/// An error answered as `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Answered as `Retry-After` (429, 503).
    pub retry_after: Option<Duration>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }
    pub(super) fn bad(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }
    pub(super) fn not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "no such transformation key for this tenant",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        if let Some(after) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(after.as_secs()));
        }
        resp
    }
}

/// A tenant over its quota: 429 with `Retry-After`.
impl From<Refused> for ApiError {
    fn from(r: Refused) -> Self {
        ApiError {
            retry_after: Some(r.retry_after),
            ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, r.why)
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        eprintln!("abbe-proxy: store error: {e}");
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the key store is unavailable",
        )
    }
}

impl From<OutsourceError> for ApiError {
    fn from(e: OutsourceError) -> Self {
        if e.is_not_satisfied() {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "the transformation key does not satisfy this ciphertext's policy",
            )
        } else {
            ApiError::bad(e.to_string())
        }
    }
}

/// A failed `transform-url` fetch: the details (resolved addresses, the
/// reason for an SSRF refusal, OS and TLS errors) go to the server log,
/// the client gets [`FetchError::client_message`], which has none of them.
impl From<FetchError> for ApiError {
    fn from(e: FetchError) -> Self {
        let status = match &e {
            FetchError::BadUrl(_) => StatusCode::BAD_REQUEST,
            FetchError::Denied { .. } => StatusCode::FORBIDDEN,
            FetchError::Resolve { .. }
            | FetchError::Upstream(_)
            | FetchError::Status { .. }
            | FetchError::Tls { .. } => StatusCode::BAD_GATEWAY,
            FetchError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            FetchError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        };
        // A bad URL is the client's own input, answered in full; it is not
        // logged (a presigned URL carries its credentials).
        if !matches!(e, FetchError::BadUrl(_)) {
            eprintln!("abbe-proxy: transform-url: {e}");
        }
        ApiError::new(status, e.client_message())
    }
}

pub(super) type ApiResult<T> = Result<T, ApiError>;
