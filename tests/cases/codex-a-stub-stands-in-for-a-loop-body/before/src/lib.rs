pub fn total(lines: &[Line]) -> f64 {
    let mut total = 0.0;
    for line in lines {
        if line.quantity == 0 {
            continue;
        }
        total += line.price * line.quantity as f64;
    }
    total
}
