#[test]
fn utc_dates() {
    assert_eq!(super::utc(0), "1970-01-01T00:00:00Z");
    assert_eq!(super::utc(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(super::utc(1_700_000_000), "2023-11-14T22:13:20Z");
    assert_eq!(super::utc(-1), "1969-12-31T23:59:59Z");
    assert_eq!(super::utc(4_102_444_799), "2099-12-31T23:59:59Z");
}
