//! AlterClientQuotas (API key 49, KIP-546): set or remove quota values of entities, each entry
//! validated and answered on its own. v1 is the first flexible version and changes nothing
//! else.

use std::borrow::Cow;

kafka_message! {
    /// The quota changes.
    pub struct AlterClientQuotasRequest<'a> {
        api_key: AlterClientQuotas, versions: 0-1, flexible: 1+;
        /// The entities and their changes.
        entries: Vec<EntryData<'a>> [versions 0+],
        /// Whether the changes are only validated, not applied.
        validate_only: bool [versions 0+],
    }

    /// One entity's changes.
    pub struct EntryData<'a> {
        /// The entity's components.
        entity: Vec<EntityData<'a>> [versions 0+],
        /// The changes.
        ops: Vec<OpData<'a>> [versions 0+],
    }

    /// One component of an entity.
    pub struct EntityData<'a> {
        /// The entity type.
        entity_type: Cow<'a, str> [versions 0+],
        /// The entity name, or null for the default.
        entity_name: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }

    /// One change.
    pub struct OpData<'a> {
        /// The quota configuration key.
        key: Cow<'a, str> [versions 0+],
        /// The value to set, ignored when `remove` is set.
        value: f64 [versions 0+],
        /// Whether the key is removed instead of set.
        remove: bool [versions 0+],
    }
}

kafka_message! {
    /// One result per entry.
    pub struct AlterClientQuotasResponse<'a> {
        api_key: AlterClientQuotas, versions: 0-1, flexible: 1+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The results, one per entry.
        entries: Vec<EntryResult<'a>> [versions 0+],
    }

    /// The result of one entry.
    pub struct EntryResult<'a> {
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The entity's components.
        entity: Vec<ResultEntity<'a>> [versions 0+],
    }

    /// One component of the entity.
    pub struct ResultEntity<'a> {
        /// The entity type.
        entity_type: Cow<'a, str> [versions 0+],
        /// The entity name, or null for the default.
        entity_name: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}
