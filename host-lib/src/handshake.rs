//! Out-of-band session setup: TLS 1.3 over TCP with mutual certificate authentication (rustls),
//! the TLS exporter (RFC 8446 §7.5) as the rocesec session secret, and a length-prefixed JSON
//! message channel inside TLS for everything secret or sensitive (QPNs, PSNs, rkeys, VAs, grants),
//! which therefore never cross the network in clear.

use crate::error::{Error, Result};
use rustls::crypto::ring::default_provider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{
    ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection, StreamOwned,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

/// Exporter label of the session secret (RFC 8446 §7.5; RFC 5705 label rules).
pub const EXPORTER_LABEL: &[u8] = b"EXPORTER-rocesec-session-secret-v1";
/// Session secret length in bytes.
pub const SECRET_LEN: usize = 32;
/// Largest control message accepted, in bytes.
pub const MAX_MESSAGE: usize = 1 << 20;

/// A party's credentials: its certificate chain and key, and the roots it trusts for its peer.
pub struct Identity {
    /// Certificate chain, leaf first (DER).
    pub chain: Vec<CertificateDer<'static>>,
    /// Private key of the leaf (DER).
    pub key: PrivateKeyDer<'static>,
    /// Trust anchors for the peer's certificate (DER).
    pub roots: Vec<CertificateDer<'static>>,
}

/// Which side of the handshake this party was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// TLS client (connects).
    Client,
    /// TLS server (accepts).
    Server,
}

trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// An authenticated control channel and the session secret it produced.
pub struct Control {
    stream: Box<dyn Stream>,
    secret: [u8; SECRET_LEN],
    role: Role,
}

fn roots(id: &Identity) -> Result<Arc<RootCertStore>> {
    let mut r = RootCertStore::empty();
    for c in &id.roots {
        r.add(c.clone())?;
    }
    Ok(Arc::new(r))
}

impl Control {
    /// Connect as TLS 1.3 client over `sock`, presenting `id` and verifying the server against
    /// `id.roots` and `server_name`.
    ///
    /// # Errors
    /// [`Error::Tls`] if the handshake fails or the peer's certificate does not verify;
    /// [`Error::Io`] on socket errors.
    pub fn client(mut sock: TcpStream, server_name: &str, id: &Identity) -> Result<Self> {
        let provider = Arc::new(default_provider());
        let cfg = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_root_certificates(roots(id)?)
            .with_client_auth_cert(id.chain.clone(), id.key.clone_key())?;
        let name =
            ServerName::try_from(server_name.to_string()).map_err(|e| Error::Tls(e.to_string()))?;
        let mut conn = ClientConnection::new(Arc::new(cfg), name)?;
        while conn.is_handshaking() {
            conn.complete_io(&mut sock)?;
        }
        let mut secret = [0u8; SECRET_LEN];
        conn.export_keying_material(&mut secret, EXPORTER_LABEL, None)?;
        Ok(Self {
            stream: Box::new(StreamOwned::new(conn, sock)),
            secret,
            role: Role::Client,
        })
    }

    /// Accept a TLS 1.3 client over `sock`, presenting `id` and requiring a client certificate
    /// that verifies against `id.roots`.
    ///
    /// # Errors
    /// As [`Control::client`]; a client without a valid certificate is refused.
    pub fn server(mut sock: TcpStream, id: &Identity) -> Result<Self> {
        let provider = Arc::new(default_provider());
        let verifier = WebPkiClientVerifier::builder_with_provider(roots(id)?, provider.clone())
            .build()
            .map_err(|e| Error::Tls(e.to_string()))?;
        let cfg = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_client_cert_verifier(verifier)
            .with_single_cert(id.chain.clone(), id.key.clone_key())?;
        let mut conn = ServerConnection::new(Arc::new(cfg))?;
        while conn.is_handshaking() {
            conn.complete_io(&mut sock)?;
        }
        let mut secret = [0u8; SECRET_LEN];
        conn.export_keying_material(&mut secret, EXPORTER_LABEL, None)?;
        Ok(Self {
            stream: Box::new(StreamOwned::new(conn, sock)),
            secret,
            role: Role::Server,
        })
    }

    /// The session secret (identical on both sides, unknown to anyone else).
    pub fn secret(&self) -> &[u8; SECRET_LEN] {
        &self.secret
    }

    /// This side's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Send one message (u32 big-endian length, then JSON) inside TLS.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::Tls`] on channel failure; [`Error::Protocol`] for a message
    /// larger than [`MAX_MESSAGE`].
    pub fn send<T: Serialize>(&mut self, msg: &T) -> Result<()> {
        let body = serde_json::to_vec(msg).map_err(|e| Error::Protocol(e.to_string()))?;
        if body.len() > MAX_MESSAGE {
            return Err(Error::Protocol("control message too large".into()));
        }
        self.stream.write_all(&(body.len() as u32).to_be_bytes())?;
        self.stream.write_all(&body)?;
        self.stream.flush()?;
        Ok(())
    }

    /// Receive one message.
    ///
    /// # Errors
    /// [`Error::Io`] on channel failure or EOF; [`Error::Protocol`] for an oversize or
    /// undecodable message.
    pub fn recv<T: DeserializeOwned>(&mut self) -> Result<T> {
        let mut len = [0u8; 4];
        self.stream.read_exact(&mut len)?;
        let n = u32::from_be_bytes(len) as usize;
        if n > MAX_MESSAGE {
            return Err(Error::Protocol("control message too large".into()));
        }
        let mut body = vec![0u8; n];
        self.stream.read_exact(&mut body)?;
        serde_json::from_slice(&body).map_err(|e| Error::Protocol(e.to_string()))
    }
}
