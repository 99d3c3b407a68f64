GREETINGS = {
    "fr": "Bonjour à tous",
    "de": "Grüß Gott",
    "ja": "こんにちは、世界",
    "es": "¡Hola, señor! 👋",
}
