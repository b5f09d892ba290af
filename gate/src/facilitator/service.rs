//! The local facilitator as an HTTP service: the handler the `facilitador-local` binary runs,
//! kept in the library so tests can start the same thing in-process on an ephemeral port.

use async_trait::async_trait;

use crate::facilitator::local::LocalFacilitator;
use gate_http::response::{Body, JSON, Reply};
use gate_http::{Handler, Request};

/// Serves `POST /verify`, `POST /settle`, `GET /supported` and `GET /health`.
pub struct FacilitatorService(pub LocalFacilitator);

#[async_trait]
impl Handler for FacilitatorService {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let (status, body) = self.0.handle_http(request.method().as_str(), request.path(), &request.body).await;
        match serde_json::to_vec(&body) {
            Ok(bytes) => Reply::new(status, JSON, Body::Bytes(bytes.into())),
            Err(_) => Reply::error(500, "error_interno", "no se pudo serializar la respuesta"),
        }
    }
}
