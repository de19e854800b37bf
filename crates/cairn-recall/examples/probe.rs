use cairn_core::Scope;
use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller};
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let index = RecallIndex::open(std::path::Path::new(&a[0])).unwrap();
    let r = Recaller::new(&index, RecallSettings::default()).unwrap();
    let res = r.recall(&RecallQuery::new(a[1].as_str(), Scope::owner(None), 10, 0));
    println!("terms {:?} tags {:?}", res.query_terms, res.query_tags);
    for h in &res.hits { println!("{:.3} {} {:?} {:?}", h.score, h.chunk_id, h.parts, h.why.terms); }
}
