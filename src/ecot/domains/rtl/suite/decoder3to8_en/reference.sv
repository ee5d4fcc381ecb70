module decoder3to8_en (
    input  wire       en,
    input  wire [2:0] a,
    output reg  [7:0] y
);
    always @* begin
        y = 8'h00;
        if (en)
            y[a] = 1'b1;
    end
endmodule
