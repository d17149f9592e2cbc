//! The one shape of the differential property tests against the `kafka-protocol` crate, shared
//! by the three differential test files: for a random value of each message at each version,
//! both encoders write the same bytes, and each decoder reads the other's bytes back to the
//! same value. A test file brings its strategies module and its `convert` module (ours →
//! kafka-protocol's types).

/// `differential! { strategies: module; test_name: OurType, TheirType, lo..=hi; ... }`: one
/// property test per line, drawing values from `module::test_name(version)`.
macro_rules! differential {
    (strategies: $strategies:ident;
     $($test:ident: $ours:path, $theirs:ty, $lo:literal..=$hi:literal;)*) => {$(
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            #[test]
            fn $test((version, value) in ($lo..=$hi as i16)
                .prop_flat_map(|v| (Just(v), $strategies::$test(v))))
            {
                let converted: $theirs = convert::$test(&value);
                let ours_bytes = value.to_bytes(version).unwrap();
                let mut theirs_bytes = Vec::new();
                converted.encode(&mut theirs_bytes, version).unwrap();
                prop_assert_eq!(&ours_bytes, &theirs_bytes, "encoders disagree at v{}", version);

                let mut input = &ours_bytes[..];
                let theirs_decoded = <$theirs>::decode(&mut input, version).unwrap();
                prop_assert!(input.is_empty());
                prop_assert_eq!(&theirs_decoded, &converted);

                let ours_decoded = <$ours>::decode_exact(&theirs_bytes, version).unwrap();
                prop_assert_eq!(&ours_decoded, &value);
            }
        }
    )*};
}
