//! Client quotas as the store keeps them (KIP-55, KIP-257, KIP-546): an entity is a user, a
//! client id, or a user and a client id together, each component naming one principal or
//! client id or the type's default; each entity holds quota values by key
//! (`producer_byte_rate`, `consumer_byte_rate`, `request_percentage`,
//! `controller_mutation_rate`).
//!
//! One record per (entity, key), so that every change of an AlterClientQuotas is a plain put or
//! delete: no read-modify-write, no compare in etcd, and two nodes changing different keys of
//! one entity never conflict (Kafka's controller applies them as separate records too).
//!
//! Key: `components:u8` (bit 0 user present, bit 1 user is the default, bit 2 client id
//! present, bit 3 client id is the default) `user:str client_id:str quota_key:str` (absent or
//! default components as empty strings). Value: `version=1 value:f64 (big-endian bits)`.

use crate::codec::{Reader, RecordDecodeError, Writer};

const QUOTA_RECORD_VERSION: u8 = 1;

/// One component's name: a named user or client id, or the entity type's default (Kafka's
/// null entity name, `<default>` in kafka-configs.sh).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QuotaName {
    /// `--entity-default`: applies to every name without its own quota.
    Default,
    /// One user (the principal's name, without `User:`) or client id.
    Named(String),
}

impl QuotaName {
    /// Kafka's wire form: `None` for the default.
    pub fn as_wire(&self) -> Option<&str> {
        match self {
            QuotaName::Default => None,
            QuotaName::Named(name) => Some(name),
        }
    }

    /// From Kafka's wire form.
    pub fn from_wire(name: Option<&str>) -> QuotaName {
        name.map_or(QuotaName::Default, |n| QuotaName::Named(n.to_owned()))
    }
}

/// A quota entity: which of its components are present, and their names. At least one is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QuotaEntity {
    /// The `user` component, if any.
    pub user: Option<QuotaName>,
    /// The `client-id` component, if any.
    pub client_id: Option<QuotaName>,
}

/// A quota value. Compared by its bits, so that changes can be compared for equality (Kafka's
/// quota values are finite doubles; NaN never reaches the store).
#[derive(Debug, Clone, Copy)]
pub struct QuotaValue(pub f64);

impl PartialEq for QuotaValue {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for QuotaValue {}

/// One stored quota: entity, key, value.
pub type QuotaEntry = (QuotaEntity, String, f64);

/// One change of an alteration: set the key to the value, or remove it (`None`).
pub type QuotaOp = (QuotaEntity, String, Option<f64>);

fn flags(entity: &QuotaEntity) -> u8 {
    let component = |name: &Option<QuotaName>, present: u8, default: u8| match name {
        None => 0,
        Some(QuotaName::Default) => present | default,
        Some(QuotaName::Named(_)) => present,
    };
    component(&entity.user, 1, 2) | component(&entity.client_id, 4, 8)
}

fn name_str(name: &Option<QuotaName>) -> &str {
    match name {
        Some(QuotaName::Named(n)) => n,
        _ => "",
    }
}

/// The key of one quota record.
pub fn encode_quota_key(entity: &QuotaEntity, key: &str) -> Vec<u8> {
    let user = name_str(&entity.user);
    let client = name_str(&entity.client_id);
    let mut w = Writer::with_capacity(4 + user.len() + client.len() + key.len());
    w.u8(flags(entity));
    w.str(user);
    w.str(client);
    w.str(key);
    w.into_bytes()
}

/// The entity and quota key of a record's key.
pub fn decode_quota_key(bytes: &[u8]) -> Result<(QuotaEntity, String), RecordDecodeError> {
    let mut r = Reader::new(bytes);
    let flags = r.u8()?;
    if flags & !0x0f != 0 || flags & 0x05 == 0 || flags & 0x02 != 0 && flags & 0x01 == 0 {
        return Err(RecordDecodeError::BadValue("quota entity components"));
    }
    if flags & 0x08 != 0 && flags & 0x04 == 0 {
        return Err(RecordDecodeError::BadValue("quota entity components"));
    }
    let component = |name: &str, present: u8, default: u8| {
        if flags & present == 0 {
            (name.is_empty()).then_some(None)
        } else if flags & default != 0 {
            (name.is_empty()).then_some(Some(QuotaName::Default))
        } else {
            Some(Some(QuotaName::Named(name.to_owned())))
        }
    };
    let user = component(r.str()?, 1, 2);
    let client_id = component(r.str()?, 4, 8);
    let key = r.str()?.to_owned();
    r.finish()?;
    match (user, client_id) {
        (Some(user), Some(client_id)) => Ok((QuotaEntity { user, client_id }, key)),
        _ => Err(RecordDecodeError::BadValue("quota entity name")),
    }
}

/// A quota record's value.
pub fn encode_quota_value(value: f64) -> Vec<u8> {
    let mut w = Writer::with_capacity(9);
    w.u8(QUOTA_RECORD_VERSION);
    w.raw(&value.to_bits().to_be_bytes());
    w.into_bytes()
}

/// The value of a quota record.
pub fn decode_quota_value(bytes: &[u8]) -> Result<f64, RecordDecodeError> {
    let mut r = Reader::new(bytes);
    let version = r.u8()?;
    if version != QUOTA_RECORD_VERSION {
        return Err(RecordDecodeError::UnknownVersion(version));
    }
    let raw = r.raw(8)?;
    let mut bits = [0u8; 8];
    bits.copy_from_slice(raw);
    r.finish()?;
    let value = f64::from_bits(u64::from_be_bytes(bits));
    if value.is_finite() {
        Ok(value)
    } else {
        Err(RecordDecodeError::BadValue("quota value (not finite)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entities() -> Vec<QuotaEntity> {
        let names = [
            None,
            Some(QuotaName::Default),
            Some(QuotaName::Named("alice".into())),
            Some(QuotaName::Named(String::new())),
        ];
        let mut out = Vec::new();
        for user in &names {
            for client_id in &names {
                if user.is_some() || client_id.is_some() {
                    out.push(QuotaEntity {
                        user: user.clone(),
                        client_id: client_id.clone(),
                    });
                }
            }
        }
        out
    }

    #[test]
    fn every_entity_shape_round_trips_and_keys_are_distinct() {
        let mut seen = std::collections::HashSet::new();
        for entity in entities() {
            let key = encode_quota_key(&entity, "producer_byte_rate");
            assert!(seen.insert(key.clone()), "{entity:?} shares a key");
            let (back, quota) = decode_quota_key(&key).unwrap();
            // A named empty string stores as a named empty string, never as the default.
            assert_eq!(back, entity);
            assert_eq!(quota, "producer_byte_rate");
        }
        assert_eq!(
            decode_quota_value(&encode_quota_value(1_048_576.5)).unwrap(),
            1_048_576.5
        );
    }

    #[test]
    fn damaged_records_are_refused() {
        assert!(decode_quota_key(&[0, 0, 0, 0]).is_err(), "no component");
        assert!(decode_quota_key(&[0x10, 0, 0, 0]).is_err(), "unknown flag");
        assert!(
            decode_quota_key(&[0x03, 1, b'a', 0, 0]).is_err(),
            "default with a name"
        );
        assert!(decode_quota_value(&encode_quota_value(f64::NAN)).is_err());
        assert!(decode_quota_value(&[1, 0, 0]).is_err());
    }
}
