-- users table
CREATE TABLE users (id INT);
-- orders table (one row per order)
CREATE TABLE orders (id INT);
