package shop

import "fmt"

type Cart struct {
	Items []string
}

func (c *Cart) Add(item string) {
	c.Items = append(c.Items, item)
}

func (c *Cart) String() string {
	return fmt.Sprintf("%d items", len(c.Items))
}
