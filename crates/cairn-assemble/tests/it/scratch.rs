#[test]
fn scan() {
    for b in (120..400).step_by(10) {
        let a = crate::fixtures::run(&crate::fixtures::request(b));
        let l: Vec<String> = a.items.iter().map(|i| format!("{}:{}:{}", i.id, i.level, i.tokens)).collect();
        eprintln!("{b} {} {:?}", a.tokens, l);
    }
}
