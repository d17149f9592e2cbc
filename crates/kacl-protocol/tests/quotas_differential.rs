//! Differential properties against `kafka-protocol` 0.18.0 for the client quota APIs
//! (DescribeClientQuotas 48, AlterClientQuotas 49) at every version both crates support (0-1,
//! the versions the Java AdminClient 4.x sends): for random values, both encoders produce the
//! same bytes, and each decoder reads the other's bytes back to the same value.

#[macro_use]
mod differential_support;
mod common;

use std::collections::BTreeMap;

use bytes::Bytes;
use kacl_protocol::messages::{alter_client_quotas as ours_a, describe_client_quotas as ours_d};
use kacl_protocol::wire::RawTaggedField;
use kacl_protocol::Message;
use kafka_protocol::messages::{
    alter_client_quotas_request as kp_ar, alter_client_quotas_response as kp_at,
    describe_client_quotas_request as kp_dr, describe_client_quotas_response as kp_dt,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use proptest::prelude::*;

/// Random values per version: unknown tagged fields appear only in the flexible version.
mod strategies {
    use kacl_protocol::messages::alter_client_quotas::{
        self as a, AlterClientQuotasRequest, AlterClientQuotasResponse, EntryResult, OpData,
        ResultEntity,
    };
    use kacl_protocol::messages::describe_client_quotas::{
        ComponentData, DescribeClientQuotasRequest, DescribeClientQuotasResponse, EntityData,
        EntryData, ValueData,
    };
    use proptest::collection::vec;
    use proptest::prelude::*;

    use crate::common::{nullable_string, string, unknown_tags};

    /// Finite quota values (NaN is never equal to itself, so it cannot round-trip by `==`).
    fn value() -> BoxedStrategy<f64> {
        prop_oneof![
            Just(0.0),
            Just(1_048_576.0),
            (-1e12f64..1e12f64),
            any::<u32>().prop_map(f64::from),
        ]
        .boxed()
    }

    pub(crate) fn describe_client_quotas_request(
        v: i16,
    ) -> BoxedStrategy<DescribeClientQuotasRequest<'static>> {
        let component = (
            string(),
            any::<i8>(),
            nullable_string(),
            unknown_tags(v >= 1),
        )
            .prop_map(|(entity_type, match_type, match_, tags)| ComponentData {
                entity_type,
                match_type,
                match_,
                unknown_tagged_fields: tags,
            });
        (vec(component, 0..3), any::<bool>(), unknown_tags(v >= 1))
            .prop_map(|(components, strict, tags)| DescribeClientQuotasRequest {
                components,
                strict,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn describe_client_quotas_response(
        v: i16,
    ) -> BoxedStrategy<DescribeClientQuotasResponse<'static>> {
        let entity = (string(), nullable_string(), unknown_tags(v >= 1)).prop_map(
            |(entity_type, entity_name, tags)| EntityData {
                entity_type,
                entity_name,
                unknown_tagged_fields: tags,
            },
        );
        let value =
            (string(), value(), unknown_tags(v >= 1)).prop_map(|(key, value, tags)| ValueData {
                key,
                value,
                unknown_tagged_fields: tags,
            });
        let entry = (vec(entity, 0..3), vec(value, 0..3), unknown_tags(v >= 1)).prop_map(
            |(entity, values, tags)| EntryData {
                entity,
                values,
                unknown_tagged_fields: tags,
            },
        );
        (
            any::<i32>(),
            any::<i16>(),
            nullable_string(),
            proptest::option::of(vec(entry, 0..3)),
            unknown_tags(v >= 1),
        )
            .prop_map(
                |(throttle_time_ms, error_code, error_message, entries, tags)| {
                    DescribeClientQuotasResponse {
                        throttle_time_ms,
                        error_code,
                        error_message,
                        entries,
                        unknown_tagged_fields: tags,
                    }
                },
            )
            .boxed()
    }

    pub(crate) fn alter_client_quotas_request(
        v: i16,
    ) -> BoxedStrategy<AlterClientQuotasRequest<'static>> {
        let entity = (string(), nullable_string(), unknown_tags(v >= 1)).prop_map(
            |(entity_type, entity_name, tags)| a::EntityData {
                entity_type,
                entity_name,
                unknown_tagged_fields: tags,
            },
        );
        let op = (string(), value(), any::<bool>(), unknown_tags(v >= 1)).prop_map(
            |(key, value, remove, tags)| OpData {
                key,
                value,
                remove,
                unknown_tagged_fields: tags,
            },
        );
        let entry = (vec(entity, 0..3), vec(op, 0..3), unknown_tags(v >= 1)).prop_map(
            |(entity, ops, tags)| a::EntryData {
                entity,
                ops,
                unknown_tagged_fields: tags,
            },
        );
        (vec(entry, 0..3), any::<bool>(), unknown_tags(v >= 1))
            .prop_map(|(entries, validate_only, tags)| AlterClientQuotasRequest {
                entries,
                validate_only,
                unknown_tagged_fields: tags,
            })
            .boxed()
    }

    pub(crate) fn alter_client_quotas_response(
        v: i16,
    ) -> BoxedStrategy<AlterClientQuotasResponse<'static>> {
        let entity = (string(), nullable_string(), unknown_tags(v >= 1)).prop_map(
            |(entity_type, entity_name, tags)| ResultEntity {
                entity_type,
                entity_name,
                unknown_tagged_fields: tags,
            },
        );
        let entry = (
            any::<i16>(),
            nullable_string(),
            vec(entity, 0..3),
            unknown_tags(v >= 1),
        )
            .prop_map(|(error_code, error_message, entity, tags)| EntryResult {
                error_code,
                error_message,
                entity,
                unknown_tagged_fields: tags,
            });
        (any::<i32>(), vec(entry, 0..3), unknown_tags(v >= 1))
            .prop_map(
                |(throttle_time_ms, entries, tags)| AlterClientQuotasResponse {
                    throttle_time_ms,
                    entries,
                    unknown_tagged_fields: tags,
                },
            )
            .boxed()
    }
}

/// Ours → kafka-protocol's types.
mod convert {
    use std::borrow::Cow;

    use super::*;

    fn s(value: &str) -> StrBytes {
        StrBytes::from_string(value.to_string())
    }

    fn ns(value: &Option<Cow<'_, str>>) -> Option<StrBytes> {
        value.as_deref().map(s)
    }

    fn tags(fields: &[RawTaggedField<'_>]) -> BTreeMap<i32, Bytes> {
        fields
            .iter()
            .map(|f| (f.tag as i32, Bytes::copy_from_slice(&f.data)))
            .collect()
    }

    pub(crate) fn describe_client_quotas_request(
        m: &ours_d::DescribeClientQuotasRequest<'_>,
    ) -> kafka_protocol::messages::DescribeClientQuotasRequest {
        let mut t = kafka_protocol::messages::DescribeClientQuotasRequest::default();
        t.components = m
            .components
            .iter()
            .map(|c| {
                let mut tc = kp_dr::ComponentData::default();
                tc.entity_type = s(&c.entity_type);
                tc.match_type = c.match_type;
                tc._match = ns(&c.match_);
                tc.unknown_tagged_fields = tags(&c.unknown_tagged_fields);
                tc
            })
            .collect();
        t.strict = m.strict;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn describe_client_quotas_response(
        m: &ours_d::DescribeClientQuotasResponse<'_>,
    ) -> kafka_protocol::messages::DescribeClientQuotasResponse {
        let mut t = kafka_protocol::messages::DescribeClientQuotasResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.error_code = m.error_code;
        t.error_message = ns(&m.error_message);
        t.entries = m.entries.as_ref().map(|entries| {
            entries
                .iter()
                .map(|e| {
                    let mut te = kp_dt::EntryData::default();
                    te.entity = e
                        .entity
                        .iter()
                        .map(|x| {
                            let mut tx = kp_dt::EntityData::default();
                            tx.entity_type = s(&x.entity_type);
                            tx.entity_name = ns(&x.entity_name);
                            tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                            tx
                        })
                        .collect();
                    te.values = e
                        .values
                        .iter()
                        .map(|x| {
                            let mut tx = kp_dt::ValueData::default();
                            tx.key = s(&x.key);
                            tx.value = x.value;
                            tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                            tx
                        })
                        .collect();
                    te.unknown_tagged_fields = tags(&e.unknown_tagged_fields);
                    te
                })
                .collect()
        });
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn alter_client_quotas_request(
        m: &ours_a::AlterClientQuotasRequest<'_>,
    ) -> kafka_protocol::messages::AlterClientQuotasRequest {
        let mut t = kafka_protocol::messages::AlterClientQuotasRequest::default();
        t.entries = m
            .entries
            .iter()
            .map(|e| {
                let mut te = kp_ar::EntryData::default();
                te.entity = e
                    .entity
                    .iter()
                    .map(|x| {
                        let mut tx = kp_ar::EntityData::default();
                        tx.entity_type = s(&x.entity_type);
                        tx.entity_name = ns(&x.entity_name);
                        tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tx
                    })
                    .collect();
                te.ops = e
                    .ops
                    .iter()
                    .map(|x| {
                        let mut tx = kp_ar::OpData::default();
                        tx.key = s(&x.key);
                        tx.value = x.value;
                        tx.remove = x.remove;
                        tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tx
                    })
                    .collect();
                te.unknown_tagged_fields = tags(&e.unknown_tagged_fields);
                te
            })
            .collect();
        t.validate_only = m.validate_only;
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }

    pub(crate) fn alter_client_quotas_response(
        m: &ours_a::AlterClientQuotasResponse<'_>,
    ) -> kafka_protocol::messages::AlterClientQuotasResponse {
        let mut t = kafka_protocol::messages::AlterClientQuotasResponse::default();
        t.throttle_time_ms = m.throttle_time_ms;
        t.entries = m
            .entries
            .iter()
            .map(|e| {
                let mut te = kp_at::EntryData::default();
                te.error_code = e.error_code;
                te.error_message = ns(&e.error_message);
                te.entity = e
                    .entity
                    .iter()
                    .map(|x| {
                        let mut tx = kp_at::EntityData::default();
                        tx.entity_type = s(&x.entity_type);
                        tx.entity_name = ns(&x.entity_name);
                        tx.unknown_tagged_fields = tags(&x.unknown_tagged_fields);
                        tx
                    })
                    .collect();
                te.unknown_tagged_fields = tags(&e.unknown_tagged_fields);
                te
            })
            .collect();
        t.unknown_tagged_fields = tags(&m.unknown_tagged_fields);
        t
    }
}

differential! {
    strategies: strategies;
    describe_client_quotas_request: ours_d::DescribeClientQuotasRequest,
        kafka_protocol::messages::DescribeClientQuotasRequest, 0..=1;
    describe_client_quotas_response: ours_d::DescribeClientQuotasResponse,
        kafka_protocol::messages::DescribeClientQuotasResponse, 0..=1;
    alter_client_quotas_request: ours_a::AlterClientQuotasRequest,
        kafka_protocol::messages::AlterClientQuotasRequest, 0..=1;
    alter_client_quotas_response: ours_a::AlterClientQuotasResponse,
        kafka_protocol::messages::AlterClientQuotasResponse, 0..=1;
}

/// A request as the Java AdminClient 4.x writes it (v1, flexible): `kafka-configs.sh --describe
/// --entity-type users --entity-name alice`, decoded by ours.
#[test]
fn an_admin_client_describe_decodes() {
    let mut theirs = kafka_protocol::messages::DescribeClientQuotasRequest::default();
    let mut component = kp_dr::ComponentData::default();
    component.entity_type = StrBytes::from_static_str("user");
    component.match_type = 0;
    component._match = Some(StrBytes::from_static_str("alice"));
    theirs.components = vec![component];
    theirs.strict = true;
    let mut wire = Vec::new();
    theirs.encode(&mut wire, 1).unwrap();
    let ours = ours_d::DescribeClientQuotasRequest::decode_exact(&wire, 1).unwrap();
    assert_eq!(ours.components.len(), 1);
    assert_eq!(ours.components[0].entity_type, "user");
    assert_eq!(ours.components[0].match_.as_deref(), Some("alice"));
    assert!(ours.strict);
}
