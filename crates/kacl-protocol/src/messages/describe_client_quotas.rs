//! DescribeClientQuotas (API key 48, KIP-546): the client quotas of the entities matching a
//! filter. An entity is a user, a client id, or a user and a client id together (KIP-55,
//! KIP-257); a null name is the entity type's default. v1 is the first flexible version and
//! changes nothing else.

use std::borrow::Cow;

kafka_message! {
    /// A filter of entities.
    pub struct DescribeClientQuotasRequest<'a> {
        api_key: DescribeClientQuotas, versions: 0-1, flexible: 1+;
        /// The filter's components, one per entity type at most.
        components: Vec<ComponentData<'a>> [versions 0+],
        /// Whether only entities with exactly the components given match (else entities with
        /// more entity types match too).
        strict: bool [versions 0+],
    }

    /// One component of the filter.
    pub struct ComponentData<'a> {
        /// The entity type the component applies to (`user`, `client-id`, `ip`).
        entity_type: Cow<'a, str> [versions 0+],
        /// How to match: 0 = the name in `match_`, 1 = the default name, 2 = any specified name.
        match_type: i8 [versions 0+],
        /// The name to match with match type 0 (Kafka's field `match`), else null.
        match_: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}

kafka_message! {
    /// The matching entities and their quotas.
    pub struct DescribeClientQuotasResponse<'a> {
        api_key: DescribeClientQuotas, versions: 0-1, flexible: 1+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The matching entities, or null on error.
        entries: Option<Vec<EntryData<'a>>> [versions 0+, nullable 0+, default Some(Vec::new())],
    }

    /// One entity and its quotas.
    pub struct EntryData<'a> {
        /// The entity's components.
        entity: Vec<EntityData<'a>> [versions 0+],
        /// The quota values set on the entity.
        values: Vec<ValueData<'a>> [versions 0+],
    }

    /// One component of an entity.
    pub struct EntityData<'a> {
        /// The entity type.
        entity_type: Cow<'a, str> [versions 0+],
        /// The entity name, or null for the default.
        entity_name: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }

    /// One quota value.
    pub struct ValueData<'a> {
        /// The quota configuration key.
        key: Cow<'a, str> [versions 0+],
        /// The quota value.
        value: f64 [versions 0+],
    }
}
