local M = {}

-- Add two numbers.
function M.add(a, b)
  return a + b
end

-- Subtract b from a.
function M.sub(a, b)
  return a - b
end

-- Multiply two numbers.
function M.mul(a, b)
  return a * b
end

local function twice(x)
  return 2 * x
end

return M
