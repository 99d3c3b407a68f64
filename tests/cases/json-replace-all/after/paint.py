color = 'red'
print(color)
save(color)
