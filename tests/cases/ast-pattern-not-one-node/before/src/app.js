const a = load();
save(a);
