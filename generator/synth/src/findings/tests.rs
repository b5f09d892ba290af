use super::*;

#[test]
fn numbers_print_from_the_rounded_value() {
    let d = Figure { value: 0.42, dec: 2, pct: true, idx: 0 };
    assert_eq!(d.es(), "42 %");
    assert_eq!(d.en(), "42%");
    let h = Figure { value: 12345.0, dec: 0, pct: false, idx: 0 };
    assert_eq!(h.es(), "12.345");
    assert_eq!(h.en(), "12,345");
    let n = Figure { value: -0.12, dec: 2, pct: false, idx: 0 };
    assert_eq!(n.es(), "−0,12");
    assert_eq!(round_to(0.4213, 2), (0.42, 2));
    assert_eq!(round_to(848.5, 0).1, 1);
}
