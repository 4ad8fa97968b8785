//! Small helpers that turn facts into the words of a finding's one-line summary.

/// At most `max` characters of `s`, with "…" when cut; whitespace runs become one space.
pub fn clip(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `9812` → `9,812`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "a", "a and b", "a, b and c".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(clip("tail  -50\n x", 20), "tail -50 x");
        assert_eq!(clip("abcdefghij", 5), "abcd…");
        assert_eq!(thousands(9812), "9,812");
        assert_eq!(thousands(123), "123");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(and_list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(and_list(&["a".into()]), "a");
    }
}
