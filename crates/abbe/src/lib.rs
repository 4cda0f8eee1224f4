//! # abbe — attribute-based and broadcast encryption
//!
//! * [`curve`] — the Type-III pairing-group traits and their backends.
//! * [`policy`] — the policy engine: parsers, access trees, LSSS.
//! * [`kem`] — the key-encapsulation trait every scheme implements.
//! * [`abe`] — attribute-based schemes (Waters11 CP-ABE with GHW11 outsourcing).
//! * [`wire`] — the versioned binary format of keys and headers.
//! * [`envelope`] — hybrid encryption of data under a KEM session key.
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod curve;
