def test_tuple(self):
    node = parse_string("1, 2", parser_class)
    self.assertEqual(
        node,
        [TokenInfo(NUMBER, string="1")],
    )
