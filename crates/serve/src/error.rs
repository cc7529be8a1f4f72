//! [`ApiError`]: every error answer, as a status, a stable code and a
//! message (docs/serve.md).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::dto::{ErrorBody, ErrorDetail};

/// An error answer: status, stable code, message.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub(crate) fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub(crate) fn internal(err: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            err.to_string(),
        )
    }
}

/// The error code of an error answer, in its extensions: for the access log.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ErrorCode(pub(crate) &'static str);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() && self.status != StatusCode::SERVICE_UNAVAILABLE {
            // A fault of the server or its index backend: say why, once per
            // answer (the access line says which request).
            tracing::error!(code = self.code, status = self.status.as_u16(), cause = %self.message, "request failed");
        }
        let (status, code) = (self.status, self.code);
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.to_owned(),
                message: self.message,
            },
        };
        let mut resp = (status, Json(body)).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        if status == StatusCode::UNAUTHORIZED {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if matches!(
            status,
            StatusCode::PAYLOAD_TOO_LARGE | StatusCode::REQUEST_TIMEOUT
        ) {
            // The rest of the body was not read: the connection cannot
            // carry another request.
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        resp.extensions_mut().insert(ErrorCode(code));
        resp
    }
}
