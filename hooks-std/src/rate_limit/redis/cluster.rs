//! `redis+cluster://`: a Redis Cluster, through the redis crate's
//! `cluster-async` client, which follows the slots to their nodes.

use redis::TlsCertificates;
use redis::cluster::ClusterClient;

use super::{REDIS_TIMEOUT, STORE, StoreError};

/// A cluster's client, and what it was made from.
pub(super) struct Cluster {
    /// The address as given (it may hold a password): for [`with_ca`](Self::with_ca).
    url: String,
    pub(super) client: ClusterClient,
    /// `host:port,host:port`: what errors name (no password).
    pub(super) address: String,
}

/// Whether `url` names a cluster.
pub(super) fn is_cluster(url: &str) -> bool {
    url.starts_with("redis+cluster://") || url.starts_with("rediss+cluster://")
}

impl Cluster {
    /// The cluster at `url`:
    /// `redis+cluster://[[user]:password@]host:port[,host:port…][/0]`, or
    /// `rediss+cluster://…` for TLS, trusting the CAs in `ca` if given. The
    /// nodes named are where the client starts: it learns the others from them.
    pub(super) fn open(url: &str, ca: Option<&[u8]>) -> Result<Cluster, StoreError> {
        let fail = |message: String| StoreError::new(STORE, message);
        let (tls, rest) = match url.split_once("://") {
            Some(("redis+cluster", rest)) => (false, rest),
            Some(("rediss+cluster", rest)) => (true, rest),
            _ => return Err(fail("not a `redis+cluster://` address".to_owned())),
        };
        if rest.contains(['#', '?']) {
            return Err(fail(
                "a `redis+cluster://` address takes no `?…` or `#…` (`#insecure` would \
                 accept any certificate; give the servers' CA instead, `store_ca`)"
                    .to_owned(),
            ));
        }
        let (credentials, rest) = match rest.rsplit_once('@') {
            Some((credentials, rest)) => (Some(credentials), rest),
            None => (None, rest),
        };
        let (hosts, database) = rest.split_once('/').unwrap_or((rest, ""));
        if !matches!(database, "" | "0") {
            return Err(fail(format!(
                "a Redis cluster has database 0 only; drop `/{database}` from the address"
            )));
        }
        if ca.is_some() && !tls {
            return Err(fail(
                "`store_ca` is a CA for a TLS address; this one is plain: write it \
                 `rediss+cluster://…`"
                    .to_owned(),
            ));
        }
        let scheme = if tls { "rediss" } else { "redis" };
        let nodes: Vec<String> = hosts
            .split(',')
            .map(str::trim)
            .filter(|host| !host.is_empty())
            .map(|host| match credentials {
                Some(credentials) => format!("{scheme}://{credentials}@{host}/0"),
                None => format!("{scheme}://{host}/0"),
            })
            .collect();
        if nodes.is_empty() {
            return Err(fail(
                "the `redis+cluster://` address names no node: `host:port,host:port`".to_owned(),
            ));
        }
        let mut builder = ClusterClient::builder(nodes)
            .connection_timeout(REDIS_TIMEOUT / 2)
            .response_timeout(REDIS_TIMEOUT / 2)
            .retries(2);
        if let Some(pem) = ca {
            builder = builder.certs(TlsCertificates {
                client_tls: None,
                root_cert: Some(pem.to_vec()),
            });
        }
        if tls {
            super::tls::provider();
        }
        // The error may quote a node's address, password and all: not shown.
        let client = builder.build().map_err(|error| {
            fail(format!(
                "not a Redis cluster address ({:?}): each node is `host:port`",
                error.kind()
            ))
        })?;
        Ok(Cluster {
            url: url.to_owned(),
            client,
            address: hosts.to_owned(),
        })
    }

    /// The same cluster, trusting the CAs in `pem` only (see [`super::RedisStore::with_ca`]).
    pub(super) fn with_ca(&self, pem: &[u8]) -> Result<Cluster, StoreError> {
        super::tls::check_pem(pem)?;
        Cluster::open(&self.url, Some(pem))
    }
}
