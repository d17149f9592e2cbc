//! Round-trip properties for every phase-A message at every version: encode then decode gives
//! the value back, `encoded_len` is exact, both sinks (`Vec` and `ExactWriter`) write the same
//! bytes, re-encoding is byte-identical, and borrowing decodes convert to owned values unchanged.

mod common;

use kacl_protocol::messages::api_versions::*;
use kacl_protocol::messages::create_acls::*;
use kacl_protocol::messages::delete_acls::*;
use kacl_protocol::messages::describe_acls::*;
use kacl_protocol::messages::sasl_authenticate::*;
use kacl_protocol::messages::sasl_handshake::*;
use kacl_protocol::{IntoStatic, Message};
use proptest::prelude::*;

macro_rules! round_trip {
    ($($test:ident: $ty:ident, $strategy:path, $lo:literal..=$hi:literal;)*) => {$(
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(96))]
            #[test]
            fn $test((version, value) in ($lo..=$hi as i16).prop_flat_map(|v| (Just(v), $strategy(v)))) {
                let bytes = value.to_bytes(version).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(bytes.len(), value.encoded_len(version));
                // Both sinks write the same bytes: a growing Vec after earlier bytes, and the
                // exactly sized writer behind `to_bytes`.
                let mut appended = vec![0xee];
                value.encode(&mut appended, version).unwrap();
                prop_assert_eq!(&appended[1..], &bytes[..]);
                let decoded = $ty::decode_exact(&bytes, version)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(&decoded, &value);
                prop_assert_eq!(decoded.to_bytes(version).unwrap(), bytes.clone());
                prop_assert_eq!(&decoded.into_static(), &value);
            }
        }
    )*};
}

round_trip! {
    describe_acls_request: DescribeAclsRequest, common::describe_acls_request, 0..=3;
    describe_acls_response: DescribeAclsResponse, common::describe_acls_response, 0..=3;
    create_acls_request: CreateAclsRequest, common::create_acls_request, 0..=3;
    create_acls_response: CreateAclsResponse, common::create_acls_response, 0..=3;
    delete_acls_request: DeleteAclsRequest, common::delete_acls_request, 0..=3;
    delete_acls_response: DeleteAclsResponse, common::delete_acls_response, 0..=3;
    api_versions_request: ApiVersionsRequest, common::api_versions_request, 0..=4;
    api_versions_response: ApiVersionsResponse, common::api_versions_response, 0..=4;
    sasl_handshake_request: SaslHandshakeRequest, common::sasl_handshake_request, 0..=1;
    sasl_handshake_response: SaslHandshakeResponse, common::sasl_handshake_response, 0..=1;
    sasl_authenticate_request: SaslAuthenticateRequest, common::sasl_authenticate_request, 0..=2;
    sasl_authenticate_response: SaslAuthenticateResponse, common::sasl_authenticate_response, 0..=2;
}
