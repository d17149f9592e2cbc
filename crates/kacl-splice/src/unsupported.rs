//! Where there is no `splice(2)`: no body is ever made, so callers always copy.

use std::convert::Infallible;
use std::io;
use std::sync::Arc;

use tokio::net::TcpStream;

use crate::BodyEnd;

/// Never made off Linux.
#[derive(Debug)]
pub struct SplicedBody(Infallible);

/// Never made off Linux.
#[derive(Debug)]
pub struct BodyEnded(Infallible);

/// Always `None` off Linux.
pub fn relay(
    _source: Arc<TcpStream>,
    _len: usize,
    _source_stall: std::time::Duration,
) -> Option<(SplicedBody, BodyEnded)> {
    None
}

impl BodyEnded {
    /// Unreachable: nothing is made.
    pub async fn wait(self) -> BodyEnd {
        match self.0 {}
    }

    /// Unreachable: nothing is made.
    pub async fn ended(&mut self) -> BodyEnd {
        match self.0 {}
    }
}

impl SplicedBody {
    /// Unreachable: nothing is made.
    pub fn remaining(&self) -> usize {
        match self.0 {}
    }

    /// Unreachable: nothing is made.
    pub fn fail(self) {
        match self.0 {}
    }

    /// Unreachable: nothing is made.
    pub fn hold_back(self, _len: usize) -> SplicedBody {
        match self.0 {}
    }

    /// Unreachable: nothing is made.
    pub async fn splice_some_into(&mut self, _destination: &TcpStream) -> io::Result<usize> {
        match self.0 {}
    }

    /// Unreachable: nothing is made.
    pub async fn read_some(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        match self.0 {}
    }
}
