-- users table
CREATE TABLE users (id INT);
-- orders table
CREATE TABLE orders (id INT);
