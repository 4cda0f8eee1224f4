//! One module per command: its arguments (clap) and what it runs.

pub mod decrypt;
pub mod encrypt;
pub mod keygen;
pub mod mqtt;
pub mod schemes;
pub mod setup;
pub mod signer_keygen;
pub mod trace;
pub mod transform;
pub mod transform_key;
