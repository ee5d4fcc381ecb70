module seq_detect (
    input  wire clk,
    input  wire rst,
    input  wire din,
    output wire found
);
    localparam [2:0] IDLE = 3'd0, GOT1 = 3'd1, GOT10 = 3'd2, GOT101 = 3'd3, GOT1011 = 3'd4;
    reg [2:0] state;

    always @(posedge clk) begin
        if (rst) state <= IDLE;
        else case (state)
            IDLE:    state <= din ? GOT1 : IDLE;
            GOT1:    state <= din ? GOT1 : GOT10;
            GOT10:   state <= din ? GOT101 : IDLE;
            GOT101:  state <= din ? GOT1011 : GOT10;
            GOT1011: state <= din ? GOT1 : GOT10;
            default: state <= IDLE;
        endcase
    end

    assign found = (state == GOT1011);
endmodule
