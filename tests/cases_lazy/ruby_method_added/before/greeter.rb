class Greeter
  def initialize(name)
    @name = name
  end

  def hello
    "Hello, #{@name}"
  end
end

puts Greeter.new("world").hello
