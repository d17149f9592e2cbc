//! Where there is no `splice(2)`: no pipe is ever given, so callers always copy.

use std::convert::Infallible;
use std::io;

use tokio::net::TcpStream;

use crate::FillError;

/// Never made off Linux.
#[derive(Debug)]
pub struct PipeFiller(Infallible);

/// Never made off Linux.
#[derive(Debug)]
pub struct SplicedBody(Infallible);

/// Always `None` off Linux.
pub fn pipe(_len: usize) -> Option<(PipeFiller, SplicedBody)> {
    None
}

impl PipeFiller {
    /// Unreachable: no filler exists.
    pub async fn fill_from(&self, _socket: &TcpStream, _len: usize) -> Result<(), FillError> {
        match self.0 {}
    }
}

impl SplicedBody {
    /// Unreachable: no body exists.
    pub fn remaining(&self) -> usize {
        match self.0 {}
    }

    /// Unreachable: no body exists.
    pub async fn splice_some_into(&mut self, _socket: &TcpStream) -> io::Result<usize> {
        match self.0 {}
    }

    /// Unreachable: no body exists.
    pub async fn read_some(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        match self.0 {}
    }
}
