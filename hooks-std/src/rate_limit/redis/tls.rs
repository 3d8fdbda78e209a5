//! `rediss://`: rustls, with the system's roots or the CAs the store is given.

use redis::{Client, ConnectionAddr, ConnectionInfo, RedisError, TlsCertificates};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;

use super::{STORE, StoreError};

/// Makes aws-lc-rs rustls's process-wide provider unless one is set: with
/// two providers compiled in (another crate may bring ring), rustls could not
/// choose, and the redis client builds its TLS settings with the default.
/// aws-lc-rs is the provider the PostgreSQL stores and reqwest use, so the
/// default installed is the one the process already runs.
pub(super) fn provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race to another thread's install is fine: one is set.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    }
}

/// A client for `info`'s `rediss://` server trusting the CAs in `pem` only.
pub(super) fn with_ca(info: ConnectionInfo, pem: &[u8]) -> Result<Client, StoreError> {
    if !matches!(info.addr(), ConnectionAddr::TcpTls { .. }) {
        return Err(StoreError::new(
            STORE,
            "`store_ca` is a CA for a TLS address; this one is plain: write it `rediss://…`",
        ));
    }
    check_pem(pem)?;
    Client::build_with_tls(
        info,
        TlsCertificates {
            client_tls: None,
            root_cert: Some(pem.to_vec()),
        },
    )
    .map_err(|error| StoreError::new(STORE, format!("the CA cannot be used: {error}")))
}

/// An error unless `pem` holds certificates, and only well-formed ones.
pub(super) fn check_pem(pem: &[u8]) -> Result<(), StoreError> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| StoreError::new(STORE, format!("the CA is not PEM: {error}")))?;
    if certificates.is_empty() {
        return Err(StoreError::new(
            STORE,
            "the CA holds no certificate (`-----BEGIN CERTIFICATE-----`)",
        ));
    }
    Ok(())
}

/// What a refused TLS handshake means, for a person: `None` if `error` is
/// not one.
pub(super) fn refusal(error: &RedisError) -> Option<String> {
    let text = error.to_string();
    text.contains("certificate").then(|| {
        format!(
            "TLS refused: {text}; the server's certificate must name the host of the \
             address and come from a CA in `store_ca` (or the system's roots without it)"
        )
    })
}
