//! TLS to PostgreSQL with rustls (aws-lc-rs): the `sslmode` and
//! `sslrootcert` of a connection string, read here because tokio-postgres
//! knows neither `verify-ca`, `verify-full` nor `sslrootcert`.
//!
//! As libpq: `disable` never uses TLS; `prefer` (the default) uses it when the
//! server offers it, and goes on in plain text when it does not, without
//! checking the certificate — it stops a passive eavesdropper, not an
//! attacker in the middle; `require` insists on TLS, checking the
//! certificate's chain when `sslrootcert` is given (as libpq does);
//! `verify-ca` checks the chain against `sslrootcert`; `verify-full` checks
//! the chain and that the certificate names the host connected to. Only
//! `verify-full` stops an attacker in the middle.

use std::path::Path;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, aws_lc_rs};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres::config::SslMode;

/// A connection string's TLS settings, taken out of it.
pub(crate) struct Tls {
    /// What tokio-postgres is told: whether to ask for TLS, and insist.
    pub(crate) mode: SslMode,
    /// How the handshake is made and the certificate checked; `None` for `disable`.
    pub(crate) config: Option<Arc<ClientConfig>>,
}

/// Removes `sslmode` and `sslrootcert` from `connection` (either form) and
/// returns the rest with the TLS they describe.
pub(crate) fn split(connection: &str) -> Result<(String, Tls), String> {
    let (rest, mode, root) = take_settings(connection)?;
    let tls = settings(mode.as_deref().unwrap_or("prefer"), root.as_deref())?;
    Ok((rest, tls))
}

fn settings(mode: &str, root: Option<&str>) -> Result<Tls, String> {
    let provider = Arc::new(aws_lc_rs::default_provider());
    let roots = root.map(roots).transpose()?;
    let (mode, check) = match mode {
        "disable" => {
            return Ok(Tls {
                mode: SslMode::Disable,
                config: None,
            });
        }
        "prefer" => (SslMode::Prefer, roots.map(Check::Chain)),
        "require" => (SslMode::Require, roots.map(Check::Chain)),
        "verify-ca" | "verify-full" => {
            let roots = roots.ok_or_else(|| {
                format!(
                    "`sslmode={mode}` checks the server's certificate against a CA: \
                     give its certificate as `sslrootcert=/path/to/ca.pem`"
                )
            })?;
            let check = if mode == "verify-ca" {
                Check::Chain(roots)
            } else {
                Check::Full(roots)
            };
            (SslMode::Require, Some(check))
        }
        other => {
            return Err(format!(
                "`sslmode={other}` is not supported: use disable, prefer, require, verify-ca or verify-full"
            ));
        }
    };
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("cannot set up TLS: {error}"))?;
    let config = match check {
        Some(Check::Full(roots)) => builder.with_root_certificates(roots).with_no_client_auth(),
        Some(Check::Chain(roots)) => {
            let chain =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                    .build()
                    .map_err(|error| format!("cannot set up TLS: {error}"))?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyName(chain)))
                .with_no_client_auth()
        }
        None => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
            .with_no_client_auth(),
    };
    Ok(Tls {
        mode,
        config: Some(Arc::new(config)),
    })
}

enum Check {
    /// The chain to a root, and the name.
    Full(RootCertStore),
    /// The chain to a root only.
    Chain(RootCertStore),
}

/// The certificates of `path` (PEM), as roots.
fn roots(path: &str) -> Result<RootCertStore, String> {
    let shown = Path::new(path).display();
    let mut roots = RootCertStore::empty();
    let certificates = CertificateDer::pem_file_iter(path)
        .map_err(|error| format!("cannot read `sslrootcert` {shown}: {error}"))?;
    for certificate in certificates {
        let certificate =
            certificate.map_err(|error| format!("`sslrootcert` {shown} is not PEM: {error}"))?;
        roots
            .add(certificate)
            .map_err(|error| format!("`sslrootcert` {shown} holds a bad certificate: {error}"))?;
    }
    if roots.is_empty() {
        return Err(format!("`sslrootcert` {shown} holds no certificate"));
    }
    Ok(roots)
}

/// `verify-ca`: the chain must lead to a root; the name is not checked.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            // webpki checks the name last: a name error means the chain held.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a root: encrypted, the certificate not
/// checked (libpq's meaning); the handshake's signatures still are.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `connection` without its `sslmode` and `sslrootcert`, and their values.
type Taken = (String, Option<String>, Option<String>);

fn take_settings(connection: &str) -> Result<Taken, String> {
    if connection.starts_with("postgres://") || connection.starts_with("postgresql://") {
        return match connection.split_once('?') {
            Some((base, query)) => take_from_url(base, query),
            None => Ok((connection.to_owned(), None, None)),
        };
    }
    take_from_pairs(connection)
}

/// `postgres://...?a=b&sslmode=...`: the query's pairs, ours taken out.
fn take_from_url(base: &str, query: &str) -> Result<Taken, String> {
    let (mut mode, mut root) = (None, None);
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => mode = Some(percent_decoded(value)?),
            "sslrootcert" => root = Some(percent_decoded(value)?),
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((rest, mode, root))
}

fn percent_decoded(value: &str) -> Result<String, String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .ok_or_else(|| format!("`{value}` has a `%` not followed by two hex digits"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`{value}` decodes to invalid UTF-8"))
}

/// `key=value key='quoted value'`: the pairs, ours taken out (libpq's
/// syntax: spaces around `=`, single quotes, backslash escapes).
fn take_from_pairs(connection: &str) -> Result<Taken, String> {
    let (mut mode, mut root) = (None, None);
    let mut rest = String::with_capacity(connection.len());
    let mut chars = connection.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            break;
        };
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if chars.next_if(|(_, c)| *c == '=').is_none() {
            return Err(format!(
                "`{key}` in the connection string has no `=` after it"
            ));
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if(|(_, c)| *c == '\'').is_some() {
            loop {
                match chars.next() {
                    Some((_, '\\')) => value.extend(chars.next().map(|(_, c)| c)),
                    Some((_, '\'')) => break,
                    Some((_, c)) => value.push(c),
                    None => return Err(format!("the value of `{key}` has no closing quote")),
                }
            }
        } else {
            while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next().map(|(_, c)| c));
                } else {
                    value.push(c);
                }
            }
        }
        let end = chars.peek().map_or(connection.len(), |(at, _)| *at);
        match key.as_str() {
            "sslmode" => mode = Some(value),
            "sslrootcert" => root = Some(value),
            _ => {
                rest.push_str(connection[start..end].trim_end());
                rest.push(' ');
            }
        }
    }
    Ok((rest.trim_end().to_owned(), mode, root))
}

#[cfg(test)]
mod tests {
    use super::take_settings;

    #[test]
    fn both_forms_give_up_their_tls_settings_and_keep_the_rest() {
        let (rest, mode, root) = take_settings(
            "host=db  sslmode = verify-full password='a b\\'c' sslrootcert='/etc/my ca.pem' dbname=x",
        )
        .unwrap();
        assert_eq!(rest, "host=db password='a b\\'c' dbname=x");
        assert_eq!(mode.as_deref(), Some("verify-full"));
        assert_eq!(root.as_deref(), Some("/etc/my ca.pem"));

        let (rest, mode, root) = take_settings(
            "postgres://u:p@db/x?connect_timeout=2&sslmode=require&sslrootcert=%2Fetc%2Fca.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u:p@db/x?connect_timeout=2");
        assert_eq!(mode.as_deref(), Some("require"));
        assert_eq!(root.as_deref(), Some("/etc/ca.pem"));

        let (rest, mode, _) = take_settings("postgres://u@db/x").unwrap();
        assert_eq!((rest.as_str(), mode), ("postgres://u@db/x", None));
        assert!(take_settings("host=db password='open").is_err());
    }
}
