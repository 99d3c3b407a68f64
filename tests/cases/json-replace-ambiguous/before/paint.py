colour = 'red'
print(colour)
save(colour)
