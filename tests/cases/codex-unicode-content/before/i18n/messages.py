GREETINGS = {
    "fr": "Bonjour à tous",
    "de": "Grüß Gott",
    "ja": "こんにちは",
}
