//! Tests of the `ssl.principal.mapping.rules` mapper: rule parsing, matching, case and errors.

use super::*;

fn mapper(rules: &str) -> SslPrincipalMapper {
    match SslPrincipalMapper::from_rules(rules) {
        Ok(m) => m,
        Err(e) => panic!("rules {rules:?} refused: {e}"),
    }
}

#[test]
fn valid_rules_from_kafka_tests_parse() {
    for rules in [
        "DEFAULT",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT",
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/",
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L",
        "RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U",
        "RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/",
        "RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/",
    ] {
        mapper(rules);
    }
}

#[test]
fn invalid_rules_from_kafka_tests_are_refused() {
    for rules in [
        "default",
        "DEFAUL",
        "DEFAULT/L",
        "DEFAULT/U",
        "RULE:CN=(.*?),OU=ServiceUsers.*/$1",
        "rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/LU",
    ] {
        assert!(
            SslPrincipalMapper::from_rules(rules).is_err(),
            "{rules:?} was accepted"
        );
    }
}

#[test]
fn error_names_the_unmatched_part() {
    let err = SslPrincipalMapper::from_rules("RULE:^CN=(.*)$/$1/L/U").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid rule: `RULE:^CN=(.*)$/$1/L/U`, unmatched substring: `/U`"
    );
    let err = SslPrincipalMapper::from_rules("DEFAULT/L").unwrap_err();
    assert_eq!(
        err,
        MappingRuleError::Unmatched {
            rule: "DEFAULT/L".into(),
            unmatched: "/L".into()
        }
    );
}

#[test]
fn maps_names_as_kafka_does() {
    let rules = [
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L",
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L",
        "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U",
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U",
        "DEFAULT",
    ]
    .join(", ");
    let m = mapper(&rules);
    let name = |dn: &str| m.name_for(dn).unwrap();
    assert_eq!(name("CN=Duke,OU=ServiceUsers,O=Org,C=US"), "duke");
    assert_eq!(
        name("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"),
        "duke@sme"
    );
    assert_eq!(name("cn=duke,ou=sme,dc=mycp,dc=com"), "DUKE@SME");
    assert_eq!(name("cN=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
    assert_eq!(
        name("OU=JavaSoft,O=Sun Microsystems,C=US"),
        "OU=JavaSoft,O=Sun Microsystems,C=US"
    );
    assert_eq!(
        m.user_principal("CN=Duke,OU=ServiceUsers,O=Org,C=US")
            .unwrap(),
        "User:duke"
    );
}

#[test]
fn splitting_matches_kafka_display() {
    let cases = [
        ("[]", ""),
        ("[DEFAULT]", "DEFAULT"),
        ("[RULE:/]", "RULE://"),
        ("[RULE:/.*]", "RULE:/.*/"),
        ("[RULE:/.*/L]", "RULE:/.*/L"),
        ("[RULE:/, DEFAULT]", "RULE://,DEFAULT"),
        ("[RULE:/, DEFAULT]", "  RULE:// ,  DEFAULT  "),
        (
            "[RULE:   /     , DEFAULT]",
            "  RULE:   /     / ,  DEFAULT  ",
        ),
        (
            "[RULE:  /     /U, DEFAULT]",
            "  RULE:  /     /U   ,DEFAULT  ",
        ),
        (
            "[RULE:([A-Z]*)/$1/U, RULE:([a-z]+)/$1, DEFAULT]",
            "  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  ",
        ),
        // Empty rules are ignored.
        ("[]", ",   , , ,      , , ,   "),
        ("[RULE:/, DEFAULT]", ",,RULE://,,,DEFAULT,,"),
        (
            "[RULE: /   , DEFAULT]",
            ",  , RULE: /   /    ,,,   DEFAULT, ,   ",
        ),
        (
            "[RULE:   /  /U, DEFAULT]",
            "     ,  , RULE:   /  /U    ,,  ,DEFAULT, ,",
        ),
        // Escape sequences.
        (r"[RULE:\/\\\(\)\n\t/\/\/]", r"RULE:\/\\\(\)\n\t/\/\//"),
        (
            r"[RULE:\**\/+/*/L, RULE:\/*\**/**]",
            r"RULE:\**\/+/*/L,RULE:\/*\**/**/",
        ),
        // Commas and the word RULE inside patterns and replacements.
        (
            r"[RULE:,RULE:,/,RULE:,\//U, RULE:,/RULE:,, RULE:,RULE:,/L,RULE:,/L, RULE:, DEFAULT, /DEFAULT, DEFAULT]",
            r"RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:,RULE:,/L,RULE:,/L,RULE:, DEFAULT, /DEFAULT/,DEFAULT",
        ),
    ];
    for (expected, rules) in cases {
        assert_eq!(
            mapper(rules).to_string(),
            format!("SslPrincipalMapper(rules = {expected})"),
            "rules {rules:?}"
        );
    }
}

#[test]
fn escaped_comma_with_whitespace_in_cn() {
    let m = mapper(r"RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT");
    assert_eq!(
        m.name_for(r"CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz")
            .unwrap(),
        r"Tkac\, Adam"
    );
}

#[test]
fn no_matching_rule_is_an_error_naming_dn_and_rules() {
    let m = mapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L");
    let err = m.name_for("CN=x,OU=Other").unwrap_err();
    assert_eq!(
        err.to_string(),
        "No rules apply to CN=x,OU=Other, rules [RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L]"
    );
    let empty = mapper("");
    assert!(empty.name_for("CN=x").is_err());
}

#[test]
fn default_mapper_returns_the_dn() {
    let m = SslPrincipalMapper::default();
    assert_eq!(m.name_for("CN=a,O=b").unwrap(), "CN=a,O=b");
    assert_eq!(m.to_string(), "SslPrincipalMapper(rules = [DEFAULT])");
    assert_eq!(mapper(DEFAULT_RULES).to_string(), m.to_string());
}

#[test]
fn pattern_must_match_the_whole_dn() {
    let m = mapper("RULE:CN=([a-z]+)/$1/");
    assert!(m.name_for("CN=abc,O=x").is_err());
    assert_eq!(m.name_for("CN=abc").unwrap(), "abc");
}

#[test]
fn missing_group_reference_is_literal_as_in_kafka() {
    // Three groups: `$4` stays text, `$12` is group 1 then the digit 2.
    let m = mapper("RULE:^(a)(b)(c)$/$1-$4-$12-$0/");
    assert_eq!(m.name_for("abc").unwrap(), "a-$4-a2-abc");
    let m = mapper(r"RULE:^(.*)$/\$1=$1/");
    assert_eq!(m.name_for("x").unwrap(), "$1=x");
}

#[test]
fn named_groups_are_expanded() {
    let m = mapper("RULE:^CN=(?<cn>[^,]+),.*$/${cn}/U");
    assert_eq!(m.name_for("CN=svc,O=org").unwrap(), "SVC");
}

#[test]
fn replacement_applies_to_every_match_like_replace_all() {
    // `(.*)` matches the whole DN, then the empty string at its end: Java's replaceAll
    // expands the replacement twice.
    let m = mapper("RULE:(.*)/x$1/");
    assert_eq!(m.name_for("abc").unwrap(), "xabcx");
}

#[test]
fn unusable_replacements_and_patterns_are_refused_at_parse_time() {
    for rules in [
        "RULE:^.*$/$1/",
        "RULE:^(.*)$/$x/",
        "RULE:^(.*)$/${nope}/",
        "RULE:^(.*)$/$/",
    ] {
        assert!(
            matches!(
                SslPrincipalMapper::from_rules(rules),
                Err(MappingRuleError::BadReplacement { .. })
            ),
            "{rules:?} was not refused for its replacement"
        );
    }
    for rules in ["RULE:(?=x).*/y/", "RULE:((/x/", r"RULE:(a)\1/x/"] {
        assert!(
            matches!(
                SslPrincipalMapper::from_rules(rules),
                Err(MappingRuleError::BadPattern { .. })
            ),
            "{rules:?} was not refused for its pattern"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_rule_lists_and_dns_never_panic(rules in "[RULEDFAULT:/\\\\,LU ()$1.*a-]{0,40}", dn in "\\PC{0,30}") {
        if let Ok(m) = SslPrincipalMapper::from_rules(&rules) {
            let _ = m.name_for(&dn);
            let _ = m.to_string();
        }
    }
}

#[test]
fn non_ascii_dn_is_handled() {
    let m = mapper("RULE:^CN=([^,]*),.*$/$1/U, DEFAULT");
    assert_eq!(m.name_for("CN=jürgen,O=ö").unwrap(), "JÜRGEN");
    let m = mapper("RULE:(x*)/-/");
    assert_eq!(m.name_for("").unwrap(), "-");
}
