//! TLS to a real PostgreSQL started with `ssl = on`, a certificate the test
//! generates, and a `pg_hba.conf` that refuses TCP without TLS (so a
//! connection that works is a TLS one): `verify-full` against the CA works;
//! an unknown CA or a certificate for another name is refused; `verify-ca`
//! ignores the name; `require` without a CA encrypts without checking;
//! `verify-full` without `sslrootcert` is a clear error.

use std::path::{Path, PathBuf};

use hooks_core::prelude::*;
use hooks_std::approval::{ApprovalStore, PostgresStore, Status};
use hooks_std::audit::{Auditor, PostgresSink};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

use super::postgres::{self, Postgres, Setup};
use super::{children, create_database, rows};

/// A certificate authority of the test's own.
struct Ca {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let pem = params.self_signed(&key).unwrap().pem();
        Ca {
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    /// A server certificate for `name` and its key, PEM.
    fn issue(&self, name: &str) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec![name.to_owned()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        let certificate = params.signed_by(&key, &self.issuer).unwrap();
        (certificate.pem(), key.serialize_pem())
    }
}

/// TCP only with TLS; the socket for the test's own setup.
const HBA: &str = "local all all trust
hostssl all all 127.0.0.1/32 trust
host all all 127.0.0.1/32 reject
host all all ::1/128 reject
";

fn url(server: &Postgres, mode: &str, root: Option<&Path>) -> String {
    let root = root.map_or_else(String::new, |root| {
        format!(" sslrootcert='{}'", root.display())
    });
    format!(
        "host=localhost port={} user={} dbname=tls sslmode={mode}{root}",
        server.port(),
        postgres::USER
    )
}

/// The error opening a sink on `connection`.
fn refused(connection: &str) -> String {
    match PostgresSink::open(connection) {
        Ok(_) => panic!("a sink opened on {connection}"),
        Err(error) => error.to_string(),
    }
}

/// Writes one record through a sink on `connection`.
fn write_one(connection: &str) {
    let auditor = Auditor::new(PostgresSink::open(connection).unwrap());
    children::runtime().block_on(async {
        let session = Session::new("tls");
        let pre = PreToolUse::new(&session, "read_file", json!({"path": "a"}));
        auditor
            .record_completed(&PostToolUse::after(&pre, Ok(json!("x"))))
            .wait()
            .await;
        assert!(matches!(auditor.gate(&pre), Decision::Continue));
    });
}

pub(crate) fn tls() {
    let ca = Ca::new("hooks test CA");
    let stranger = Ca::new("someone else's CA");
    let dir = TempDir::new();
    let dir = &dir.0;
    let ca_file: PathBuf = dir.join("ca.pem");
    let stranger_file: PathBuf = dir.join("stranger.pem");
    std::fs::write(&ca_file, &ca.pem).unwrap();
    std::fs::write(&stranger_file, &stranger.pem).unwrap();
    let setup = |name: &str| Setup {
        tcp: true,
        tls: Some(ca.issue(name)),
        hba: Some(HBA.to_owned()),
        ..Setup::default()
    };
    let server = Postgres::start_with(&setup("localhost"));
    let misnamed = Postgres::start_with(&setup("db.invalid"));
    create_database(&server, "tls");
    create_database(&misnamed, "tls");

    // Plain text is refused by the server: what works below is TLS.
    let plain = refused(&url(&server, "disable", None));
    assert!(
        plain.contains("no encryption") || plain.contains("pg_hba"),
        "{plain}"
    );

    write_one(&url(&server, "verify-full", Some(&ca_file)));
    assert_eq!(rows(&server, "tls").len(), 1);

    let unknown = refused(&url(&server, "verify-full", Some(&stranger_file)));
    assert!(unknown.to_lowercase().contains("certificate"), "{unknown}");
    let wrong_name = refused(&url(&misnamed, "verify-full", Some(&ca_file)));
    assert!(
        wrong_name.to_lowercase().contains("certificate"),
        "{wrong_name}"
    );
    // verify-ca checks the chain, not the name; an unknown CA still fails.
    write_one(&url(&misnamed, "verify-ca", Some(&ca_file)));
    let unknown = refused(&url(&misnamed, "verify-ca", Some(&stranger_file)));
    assert!(unknown.to_lowercase().contains("certificate"), "{unknown}");
    // require without a CA: encrypted, unchecked (libpq's meaning).
    write_one(&url(&misnamed, "require", None));
    write_one(&url(&server, "prefer", None));
    assert_eq!(rows(&misnamed, "tls").len(), 2);

    let no_root = refused(&url(&server, "verify-full", None));
    assert!(no_root.contains("sslrootcert"), "{no_root}");
    let missing = refused(&url(&server, "verify-full", Some(&dir.join("nothing.pem"))));
    assert!(missing.contains("nothing.pem"), "{missing}");

    // The approval store speaks TLS the same way.
    let store = PostgresStore::new(&url(&server, "verify-full", Some(&ca_file))).unwrap();
    children::runtime()
        .block_on(store.list(Status::Pending))
        .unwrap();
    let store = PostgresStore::new(&url(&misnamed, "verify-full", Some(&ca_file))).unwrap();
    assert!(
        children::runtime()
            .block_on(store.list(Status::Pending))
            .is_err()
    );
}

/// A directory for the CA files, removed when the test ends, failed or not.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let dir = std::env::temp_dir().join(format!("hooks-pg-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
