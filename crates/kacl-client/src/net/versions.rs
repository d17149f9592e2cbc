//! The versions a broker offers per API (its ApiVersions response) and the choice of the
//! highest version both sides speak, as every Kafka client makes it.

use std::collections::HashMap;

use kacl_protocol::messages::api_versions::ApiVersionsResponse;
use kacl_protocol::{ApiKey, VersionRange};

use crate::error::AdminError;

/// What one broker said it supports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiVersionsTable {
    ranges: HashMap<i16, VersionRange>,
}

impl ApiVersionsTable {
    /// The table from an ApiVersions response.
    pub fn from_response(response: &ApiVersionsResponse<'_>) -> Self {
        let ranges = response
            .api_keys
            .iter()
            .map(|api| {
                (
                    api.api_key,
                    VersionRange::between(api.min_version, api.max_version),
                )
            })
            .collect();
        ApiVersionsTable { ranges }
    }

    /// A table from explicit ranges (tests, and brokers known in advance).
    pub fn from_ranges(ranges: impl IntoIterator<Item = (ApiKey, VersionRange)>) -> Self {
        ApiVersionsTable {
            ranges: ranges
                .into_iter()
                .map(|(api, range)| (api.key(), range))
                .collect(),
        }
    }

    /// The broker's range for `api`, if it listed the API.
    pub fn broker_range(&self, api: ApiKey) -> Option<VersionRange> {
        self.ranges.get(&api.key()).copied()
    }

    /// The highest version in both the broker's range for `api` and `ours`, or an
    /// [`AdminError::UnsupportedVersion`] saying why there is none.
    pub fn pick(&self, api: ApiKey, ours: VersionRange) -> Result<i16, AdminError> {
        let Some(theirs) = self.broker_range(api) else {
            return Err(AdminError::UnsupportedVersion {
                api,
                detail: format!("the broker does not support {api} (API key {})", api.key()),
            });
        };
        let low = theirs.min.max(ours.min);
        let high = theirs.max.min(ours.max);
        if low > high || theirs.is_empty() {
            return Err(AdminError::UnsupportedVersion {
                api,
                detail: format!(
                    "the broker supports {api} versions {}-{}, this client {}-{}",
                    theirs.min, theirs.max, ours.min, ours.max
                ),
            });
        }
        Ok(high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_highest_common_version() {
        let table = ApiVersionsTable::from_ranges([
            (ApiKey::DescribeAcls, VersionRange::between(1, 1)),
            (ApiKey::Metadata, VersionRange::between(0, 20)),
        ]);
        assert_eq!(
            table.pick(ApiKey::DescribeAcls, VersionRange::between(0, 3)),
            Ok(1)
        );
        assert_eq!(
            table.pick(ApiKey::Metadata, VersionRange::between(0, 13)),
            Ok(13)
        );
    }

    #[test]
    fn missing_apis_and_disjoint_ranges_are_unsupported() {
        let table =
            ApiVersionsTable::from_ranges([(ApiKey::CreateAcls, VersionRange::between(4, 6))]);
        let err = table
            .pick(ApiKey::DeleteAcls, VersionRange::between(0, 3))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "UNSUPPORTED_VERSION: the broker does not support DeleteAcls (API key 31)"
        );
        let err = table
            .pick(ApiKey::CreateAcls, VersionRange::between(0, 3))
            .unwrap_err();
        assert!(
            err.to_string().contains("versions 4-6, this client 0-3"),
            "{err}"
        );
    }
}
