package main

import "fmt"

func helper() {
	fmt.Println("c")
	fmt.Println("d")
}
