//! Round-trip and hostile-input properties for the topic, cluster and SCRAM messages at every
//! declared version: encode then decode gives the value back, `encoded_len` is exact,
//! re-encoding is byte-identical, borrowing decodes convert to owned values unchanged; every
//! strict prefix of an encoding fails as truncated, one trailing byte is rejected, and random
//! bytes never panic.

mod admin_common;
mod common;

use kacl_protocol::messages::alter_user_scram_credentials::*;
use kacl_protocol::messages::create_partitions::*;
use kacl_protocol::messages::create_topics::*;
use kacl_protocol::messages::delete_topics::*;
use kacl_protocol::messages::describe_cluster::*;
use kacl_protocol::messages::describe_user_scram_credentials::*;
use kacl_protocol::messages::metadata::*;
use kacl_protocol::{DecodeError, IntoStatic, Message};
use proptest::prelude::*;

macro_rules! properties {
    ($($test:ident: $ty:ident, $lo:literal..=$hi:literal;)*) => {$(
        mod $test {
            use super::*;

            fn value() -> impl Strategy<Value = (i16, $ty<'static>)> {
                ($lo..=$hi as i16).prop_flat_map(|v| (Just(v), admin_common::$test(v)))
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]

                #[test]
                fn round_trips((version, value) in value()) {
                    let bytes = value
                        .to_bytes(version)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(bytes.len(), value.encoded_len(version));
                    // A growing Vec writes what the exactly sized writer did.
                    let mut appended = vec![0xee];
                    value.encode(&mut appended, version).unwrap();
                    prop_assert_eq!(&appended[1..], &bytes[..]);
                    let decoded = $ty::decode_exact(&bytes, version)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(&decoded, &value);
                    prop_assert_eq!(decoded.to_bytes(version).unwrap(), bytes.clone());
                    prop_assert_eq!(&decoded.into_static(), &value);
                }

                /// Every strict prefix is reported as truncated (or as an array count the
                /// remaining bytes cannot hold), never a panic and never a success.
                #[test]
                fn every_prefix_is_truncated((version, value) in value()) {
                    let bytes = value.to_bytes(version).unwrap();
                    for cut in 0..bytes.len() {
                        match $ty::decode_exact(&bytes[..cut], version) {
                            Err(DecodeError::Truncated { .. }
                                | DecodeError::TooManyElements { .. }) => {}
                            other => prop_assert!(
                                false, "prefix {} of {}: {:?}", cut, bytes.len(), other
                            ),
                        }
                    }
                }

                #[test]
                fn trailing_bytes_are_rejected((version, value) in value()) {
                    let mut bytes = value.to_bytes(version).unwrap();
                    bytes.push(0);
                    prop_assert_eq!(
                        $ty::decode_exact(&bytes, version),
                        Err(DecodeError::TrailingBytes { message: stringify!($ty), remaining: 1 })
                    );
                }

                /// Arbitrary bytes decode or fail, never panic; what decodes re-encodes to
                /// something that decodes to the same value.
                #[test]
                fn random_bytes_never_panic(version in $lo..=$hi as i16,
                    bytes in proptest::collection::vec(any::<u8>(), 0..128))
                {
                    if let Ok(value) = $ty::decode_exact(&bytes, version) {
                        let again = value.to_bytes(version).unwrap();
                        prop_assert_eq!($ty::decode_exact(&again, version).unwrap(), value);
                    }
                }
            }
        }
    )*};
}

properties! {
    metadata_request: MetadataRequest, 0..=13;
    metadata_response: MetadataResponse, 0..=13;
    create_topics_request: CreateTopicsRequest, 0..=7;
    create_topics_response: CreateTopicsResponse, 0..=7;
    delete_topics_request: DeleteTopicsRequest, 0..=6;
    delete_topics_response: DeleteTopicsResponse, 0..=6;
    create_partitions_request: CreatePartitionsRequest, 0..=3;
    create_partitions_response: CreatePartitionsResponse, 0..=3;
    describe_cluster_request: DescribeClusterRequest, 0..=2;
    describe_cluster_response: DescribeClusterResponse, 0..=2;
    describe_user_scram_credentials_request: DescribeUserScramCredentialsRequest, 0..=0;
    describe_user_scram_credentials_response: DescribeUserScramCredentialsResponse, 0..=0;
    alter_user_scram_credentials_request: AlterUserScramCredentialsRequest, 0..=0;
    alter_user_scram_credentials_response: AlterUserScramCredentialsResponse, 0..=0;
}

/// `Default` of every message encodes at every declared version: the defaults of fields a
/// version lacks are the schema defaults, and fields that are never null default to non-null.
#[test]
fn defaults_encode_at_every_version() {
    macro_rules! check {
        ($($ty:ident),*) => {$(
            let value = $ty::default();
            for version in $ty::VERSIONS.min..=$ty::VERSIONS.max {
                let bytes = value
                    .to_bytes(version)
                    .unwrap_or_else(|e| panic!("{} v{version}: {e}", stringify!($ty)));
                assert_eq!($ty::decode_exact(&bytes, version).unwrap(), value);
            }
        )*};
    }
    check!(
        MetadataRequest,
        MetadataResponse,
        CreateTopicsRequest,
        CreateTopicsResponse,
        DeleteTopicsRequest,
        DeleteTopicsResponse,
        CreatePartitionsRequest,
        CreatePartitionsResponse,
        DescribeClusterRequest,
        DescribeClusterResponse,
        DescribeUserScramCredentialsRequest,
        DescribeUserScramCredentialsResponse,
        AlterUserScramCredentialsRequest,
        AlterUserScramCredentialsResponse
    );
}
